/**
 * Reads a request body once, with a size limit (413 before anything goes upstream, decided from
 * Content-Length when the client sends one), a limit on the silence between two chunks and a deadline
 * for the whole body (408, so a client trickling one byte at a time cannot hold a request open), and
 * parses it as JSON under the gateway's rules (json-body.ts).
 */
import { type IncomingMessage } from 'node:http';
import type { JsonObject } from '../base/json';
import { Errors } from '../base/errors';
import { parseJsonBody } from './json-body';

export type BodyReader = (req: IncomingMessage) => Promise<Buffer>;

export interface BodyLimits {
  readonly maxBytes: number;
  /** The longest silence between two chunks. */
  readonly idleMs: number;
  /** The longest the whole body may take. */
  readonly totalMs: number;
}

/** Where a read body's length is kept (the access log's `bytes_in`), set as the read ends. */
export interface BodyCount {
  bytesIn: number;
}

/** How a client's body is read and parsed; one per server, shared by its requests. */
export interface RequestBodies {
  /**
   * Reads the body under the limits, with `maxBytes` in place of the size limit when given; its length
   * goes into `count` directly, so a caller needs no reaction of its own to record it.
   */
  read(req: IncomingMessage, maxBytes?: number, count?: BodyCount): Promise<Buffer>;
  parseJson(raw: Buffer): JsonObject;
}

export function bodyReader(limits: BodyLimits): BodyReader {
  return (req) => readBody(req, limits);
}

export function requestBodies(limits: BodyLimits & { readonly maxJsonDepth: number }): RequestBodies {
  return {
    read: (req, maxBytes, count) =>
      readBody(req, maxBytes === undefined ? limits : { ...limits, maxBytes }, count),
    parseJson: (raw) => parseJsonBody(raw, limits.maxJsonDepth),
  };
}

function readBody(
  req: IncomingMessage,
  { maxBytes, idleMs, totalMs }: BodyLimits,
  count?: BodyCount,
): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > maxBytes) return Promise.reject(Errors.bodyTooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    // One timer per request (a second would cost a measurable share of the gateway's time): it fires
    // after idleMs of silence; the deadline is checked as each chunk arrives and when the timer fires,
    // so a trickled body is stopped at its first chunk after the deadline.
    const deadlineAt = Date.now() + totalMs;
    const timer = setTimeout(onIdle, Math.min(idleMs, totalMs));
    function cleanup(): void {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    }
    /** Stops reading (the answer closes the connection) and rejects with `error`. */
    function stop(error: Error): void {
      cleanup();
      req.pause();
      reject(error);
    }
    function onData(chunk: Buffer): void {
      received += chunk.length;
      if (received > maxBytes) return stop(Errors.bodyTooLarge(maxBytes));
      if (Date.now() >= deadlineAt) return stop(Errors.bodyDeadline(totalMs));
      chunks.push(chunk);
      timer.refresh();
    }
    function onIdle(): void {
      stop(Date.now() >= deadlineAt ? Errors.bodyDeadline(totalMs) : Errors.bodyTimeout());
    }
    function onEnd(): void {
      cleanup();
      if (count) count.bytesIn = received;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    }
    function onError(): void {
      cleanup();
      reject(Errors.clientClosed());
    }
    /** The client went away before the body was complete: its event, not the gateway's failure. */
    function onClose(): void {
      if (!req.complete) onError();
    }
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
