import type { IncomingHttpHeaders } from 'node:http';
import busboy from 'busboy';
import { badForm } from './errors';

/** A file part of a form. */
export interface FormFile {
  /** The part's field name (`file` for an upload). */
  readonly field: string;
  readonly filename: string;
  readonly bytes: Buffer;
}

/** A multipart/form-data body, read whole. */
export interface Form {
  readonly fields: ReadonlyMap<string, string>;
  readonly files: readonly FormFile[];
}

// Generous for a simulator, but a runaway form is still refused while it is read.
const LIMITS = { fields: 100, files: 10, parts: 110 };

/**
 * Reads a form from its bytes (the body is already read, so its size was capped on the way in). busboy
 * checks the boundary and every part's headers as it goes.
 * @throws SimError 400 when the body is not a form, or is cut short.
 */
export function readForm(headers: IncomingHttpHeaders, raw: Buffer): Promise<Form> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers, limits: LIMITS });
    } catch (e) {
      return reject(badForm((e as Error).message)); // not a form, or no boundary
    }
    const fields = new Map<string, string>();
    const files: FormFile[] = [];
    parser.on('field', (name, value) => fields.set(name, value));
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      // A part cut short fails its stream as well as the parser: unheard, it would throw.
      stream.once('error', (e: Error) => reject(badForm(e.message)));
      stream.on('end', () =>
        files.push({ field, filename: info.filename ?? field, bytes: Buffer.concat(chunks) }),
      );
    });
    parser.once('error', (e: Error) => reject(badForm(e.message)));
    parser.once('close', () => resolve({ fields, files }));
    parser.end(raw);
  });
}
