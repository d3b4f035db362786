/**
 * Which headers cross the gateway. Towards the upstream: the client's end-to-end headers, minus its
 * credentials and anything that describes the client's own connection; the upstream plugin's headers
 * (its credential) then replace any of the same name. Towards the client: the upstream's headers minus
 * hop-by-hop ones; the upstream's request id is kept under another name beside the gateway's.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/** Never forwarded upstream: the client's credentials, its host, and what the gateway sets itself. */
const NOT_FORWARDED = new Set([
  ...HOP_BY_HOP,
  'authorization',
  'x-api-key',
  'cookie',
  'host',
  'content-length',
  'expect',
  'accept-encoding',
  'openai-organization',
  'openai-project',
]);

/** Not copied back to the client: the gateway sets its own length and request id. */
const NOT_RETURNED = new Set([...HOP_BY_HOP, 'content-length', 'x-request-id']);

/** The extra hop-by-hop headers a message names in its own `Connection` header. */
function connectionTokens(headers: IncomingHttpHeaders): Set<string> | undefined {
  const connection = headers.connection;
  if (!connection || connection === 'keep-alive' || connection === 'close') return undefined;
  return new Set(connection.split(',').map((token) => token.trim().toLowerCase()));
}

export function upstreamRequestHeaders(
  client: IncomingHttpHeaders,
  own: Readonly<Record<string, string>>,
  bodyLength: number,
  requestId: string,
): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  const named = connectionTokens(client);
  for (const name in client) if (!NOT_FORWARDED.has(name) && !named?.has(name)) out[name] = client[name];
  Object.assign(out, own);
  out['content-length'] = String(bodyLength);
  // The gateway reads usage from the response, so it must arrive uncompressed.
  out['accept-encoding'] = 'identity';
  out['x-request-id'] = requestId;
  return out;
}

export function clientResponseHeaders(upstream: IncomingHttpHeaders, requestId: string): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const named = connectionTokens(upstream);
  for (const name in upstream) if (!NOT_RETURNED.has(name) && !named?.has(name)) out[name] = upstream[name];
  const upstreamId = upstream['x-request-id'];
  if (upstreamId !== undefined) out['x-upstream-request-id'] = upstreamId;
  out['x-request-id'] = requestId;
  return out;
}
