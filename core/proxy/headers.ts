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
  // What a client or a balancer says of the client's address: upstreams get the gateway's word or none.
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-real-ip',
]);

/**
 * Not copied back to the client: the gateway sets its own length and request id, and its own rate-limit
 * headers; the upstream's describe the gateway's account with the vendor, not the client's key.
 */
const NOT_RETURNED = new Set([
  ...HOP_BY_HOP,
  'content-length',
  'x-request-id',
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
]);

/**
 * W3C Trace Context, version 00: `00-<trace id>-<parent id>-<flags>` in lower-case hex. An all-zero trace or
 * parent id is invalid by the specification.
 */
const TRACEPARENT = /^00-(?!0{32}-)[0-9a-f]{32}-(?!0{16}-)[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * Untraced, the client's trace context goes upstream unchanged when it is valid; an invalid `traceparent`
 * is dropped with its `tracestate` (which means nothing without it), as the specification asks of a proxy.
 */
function keepValidTrace(out: IncomingHttpHeaders): void {
  const traceparent = out.traceparent;
  if (traceparent === undefined && out.tracestate === undefined) return; // the common case: no deletes
  if (typeof traceparent === 'string' && TRACEPARENT.test(traceparent)) return;
  delete out.traceparent;
  delete out.tracestate;
}

/** The extra hop-by-hop headers a message names in its own `Connection` header. */
function connectionTokens(headers: IncomingHttpHeaders): Set<string> | undefined {
  const connection = headers.connection;
  if (!connection || connection === 'keep-alive' || connection === 'close') return undefined;
  return new Set(connection.split(',').map((token) => token.trim().toLowerCase()));
}

/**
 * `host` is the upstream's (its URL's `host`), written here and not by http-proxy-3's `changeOrigin`:
 * that option adds it to a spread copy of these headers, and V8 gives such a copy a new hidden class on
 * every request.
 */
export function upstreamRequestHeaders(
  client: IncomingHttpHeaders,
  host: string,
  own: Readonly<Record<string, string>>,
  bodyLength: number,
  requestId: string,
  forwardedFor: string | undefined,
  /** A traced request's: it names the attempt's span, and the client's tracestate goes with it. */
  traceparent?: string,
): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = { host };
  const named = connectionTokens(client);
  for (const name in client) if (!NOT_FORWARDED.has(name) && !named?.has(name)) out[name] = client[name];
  keepValidTrace(out);
  Object.assign(out, own);
  out['content-length'] = String(bodyLength);
  // The gateway reads usage from the response, so it must arrive uncompressed.
  out['accept-encoding'] = 'identity';
  // The gateway's id (the client's when it sent a sane one), so the upstream's logs can be matched to ours.
  out['x-request-id'] = requestId;
  if (forwardedFor !== undefined) out['x-forwarded-for'] = forwardedFor;
  if (traceparent !== undefined) out.traceparent = traceparent;
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
