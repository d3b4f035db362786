/** Small HTTP helpers for tests: JSON posts with a key, reading an SSE response into events, raw bytes. */
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface JsonResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}

/** POSTs JSON with `Authorization: Bearer <key>` (no header when key is undefined). */
export async function postJson<T = Record<string, unknown>>(
  url: string,
  body: unknown,
  key: string | undefined,
  headers: Record<string, string> = {},
): Promise<JsonResponse<T>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (an SSE body, say): callers read `text`
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export async function getJson<T = Record<string, unknown>>(
  url: string,
  key?: string,
): Promise<JsonResponse<T>> {
  const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as T, text };
}

/** Splits an SSE body into events (comments dropped), as a client would see them. */
export function parseSse(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  parser.feed(text);
  return events;
}

/** The `data` of every event parsed as JSON, except the final `[DONE]`. */
export function sseJson<T = Record<string, unknown>>(text: string): T[] {
  return parseSse(text)
    .filter((e) => e.data !== '[DONE]')
    .map((e) => JSON.parse(e.data) as T);
}

/** The error body the contract defines for gateway errors. */
export interface ErrorBody {
  error: { code: string; message: string; type: string };
}

/** A raw node:http POST that returns the response as soon as its headers arrive (for stream tests). */
export function openStream(
  url: string,
  body: unknown,
  key: string,
  headers: Record<string, string> = {},
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    });
    req.on('response', resolve).on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/**
 * Resolves once a streamed response has delivered text containing `marker` (set it to utf8), however the
 * text was cut into reads: a marker split across two reads still counts. Rejects, with what came, when
 * the response ends first.
 */
export function untilData(res: IncomingMessage, marker: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: string | Buffer): void => {
      seen += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      if (!seen.includes(marker)) return;
      stop();
      resolve();
    };
    const onEnd = (): void => {
      stop();
      reject(
        new Error(`the response ended before ${JSON.stringify(marker)}; it sent ${JSON.stringify(seen)}`),
      );
    };
    const stop = (): void => {
      res.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', onEnd);
    };
    res.on('data', onData).on('end', onEnd).on('close', onEnd).on('error', onEnd);
  });
}

/** Writes raw bytes to the gateway and returns everything it answers before closing. */
export function rawExchange(url: string, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += d.toString()));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
    socket.write(bytes);
  });
}
