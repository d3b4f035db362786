/** What a sign-on route answers, and how it is written: never cached, as it carries cookies or a CSRF token. */
import type { ServerResponse } from 'node:http';

export interface SsoReply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string | string[]>>;
  /** JSON; none for a redirect or a 204. */
  readonly body?: unknown;
}

export function sendReply(res: ServerResponse, reply: SsoReply, requestId: string): void {
  const body = reply.body === undefined ? '' : JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    ...reply.headers,
    ...(body ? { 'content-type': 'application/json' } : {}),
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-request-id': requestId,
  });
  res.end(body);
}
