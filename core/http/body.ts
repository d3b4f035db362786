/**
 * Reads a request body once, with a size limit (413 before anything goes upstream, decided from
 * Content-Length when the client sends one) and a limit on the silence between two chunks (408).
 */
import { type IncomingMessage } from 'node:http';
import { Errors } from '../errors';

export type BodyReader = (req: IncomingMessage) => Promise<Buffer>;

export interface BodyLimits {
  readonly maxBytes: number;
  readonly idleMs: number;
}

export function bodyReader(limits: BodyLimits): BodyReader {
  return (req) => readBody(req, limits);
}

function readBody(req: IncomingMessage, { maxBytes, idleMs }: BodyLimits): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > maxBytes) return Promise.reject(Errors.bodyTooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const timer = setTimeout(onIdle, idleMs);
    function cleanup(): void {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    }
    function onData(chunk: Buffer): void {
      received += chunk.length;
      if (received > maxBytes) {
        cleanup();
        req.pause();
        reject(Errors.bodyTooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
      timer.refresh();
    }
    function onEnd(): void {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    }
    function onError(e: unknown): void {
      cleanup();
      reject(e instanceof Error ? e : new Error(String(e)));
    }
    /** The client went away before the body was complete. */
    function onClose(): void {
      if (!req.complete) onError(new Error('request aborted'));
    }
    function onIdle(): void {
      cleanup();
      req.pause();
      reject(Errors.bodyTimeout());
    }
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
