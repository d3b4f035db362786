/** The batch API's answers, written on the service exchange (the gateway's own headers are already set). */
import type { ServiceExchange } from '../../../core/kit/service';

export function sendJson(exchange: ServiceExchange, status: number, payload: unknown): void {
  const body = JSON.stringify(payload);
  exchange.res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  exchange.res.end(body);
}

export function sendBytes(exchange: ServiceExchange, contentType: string, body: Buffer): void {
  exchange.res.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
  exchange.res.end(body);
}

/** A page as OpenAI's list endpoints answer it. */
export const listOf = <T extends { id: string }>(data: readonly T[], hasMore: boolean) => ({
  object: 'list',
  data,
  first_id: data[0]?.id ?? null,
  last_id: data.at(-1)?.id ?? null,
  has_more: hasMore,
});
