import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { SimErrors } from './sim-error';

/** Largest request body accepted; beyond it the answer is 413. */
export const BODY_LIMIT = 16 * 1024 * 1024;

/** The request body as it will be logged: parsed JSON, else the raw text, null when empty. */
export interface ReadBody {
  readonly value: unknown;
  /** True when there was a body meant to be JSON and it was not. */
  readonly invalid: boolean;
  /** The bytes as received. */
  readonly raw: Buffer;
}

/** A file upload (OpenAI's `POST /v1/files`) is a form, not JSON: its route reads the bytes itself. */
const isForm = (headers: IncomingHttpHeaders): boolean =>
  /^\s*multipart\/form-data\b/i.test(headers['content-type'] ?? '');

function collect(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= BODY_LIMIT) return void chunks.push(chunk);
      // Keep draining so the 413 can still be written on this connection.
      req.off('data', onData).resume();
      reject(SimErrors.bodyTooLarge(BODY_LIMIT));
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/**
 * Reads and decodes the whole body; a form is logged as its text and never counts as invalid JSON.
 * @throws SimError 413 over {@link BODY_LIMIT}.
 */
export async function readBody(req: IncomingMessage): Promise<ReadBody> {
  const raw = await collect(req);
  if (raw.length === 0) return { value: null, invalid: false, raw };
  const text = raw.toString('utf8');
  if (isForm(req.headers)) return { value: text, invalid: false, raw };
  try {
    return { value: JSON.parse(text) as unknown, invalid: false, raw };
  } catch {
    return { value: text, invalid: true, raw };
  }
}

/** Writes a complete JSON answer with a content-length, so keep-alive connections stay reusable. */
export function writeJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers?: OutgoingHttpHeaders,
): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
