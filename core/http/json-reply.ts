/** A complete JSON answer written by an endpoint of the gateway's own (not relayed from an upstream). */
import type { ServedRequest } from '../request/served-request';

export function replyJson(ctx: ServedRequest, status: number, payload: unknown): void {
  const body = JSON.stringify(payload);
  ctx.status = status;
  ctx.res.writeHead(status, {
    ...ctx.replyHeaders,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': ctx.requestId,
  });
  ctx.res.end(body);
}
