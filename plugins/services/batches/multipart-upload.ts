/**
 * Reads `POST /v1/files`' multipart/form-data body (as the `openai` SDK sends it): the `purpose` field
 * and one `file` part. busboy parses it; anything it cannot, and any part beyond these, is a 400.
 */
import busboy from 'busboy';
import { Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import { BatchErrors } from './batch-errors';

export interface Upload {
  readonly purpose: string;
  readonly filename: string;
  readonly content: Buffer;
}

const MULTIPART = /^multipart\/form-data\b/i;

export function readUpload(headers: IncomingHttpHeaders, body: Buffer): Promise<Upload> {
  if (!MULTIPART.test(headers['content-type'] ?? ''))
    return Promise.reject(BatchErrors.badUpload('the body must be multipart/form-data'));
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers, limits: { files: 1, fields: 8, parts: 9 } });
  } catch (e) {
    return Promise.reject(BatchErrors.badUpload(`malformed multipart body: ${(e as Error).message}`));
  }
  return new Promise((resolve, reject) => {
    const fields = new Map<string, string>();
    let file: { filename: string; chunks: Buffer[] } | undefined;
    const fail = (problem: string): void => reject(BatchErrors.badUpload(problem));
    parser.on('field', (name, value) => fields.set(name, value));
    parser.on('file', (name, stream, info) => {
      if (name !== 'file') {
        stream.resume();
        return fail(`unexpected file part '${name}': the file goes in the part named 'file'`);
      }
      const chunks: Buffer[] = [];
      file = { filename: info.filename || 'upload.jsonl', chunks };
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    });
    parser.on('filesLimit', () => fail('only one file may be uploaded at a time'));
    parser.on('partsLimit', () => fail('too many parts in the multipart body'));
    parser.on('error', (e: Error) => fail(`malformed multipart body: ${e.message}`));
    parser.on('close', () => {
      const purpose = fields.get('purpose');
      if (purpose === undefined) return fail("field 'purpose' is required");
      if (!file) return fail("a part named 'file' is required");
      resolve({ purpose, filename: file.filename, content: Buffer.concat(file.chunks) });
    });
    Readable.from([body]).pipe(parser);
  });
}
