/**
 * A batch line as an upstream family's `prepare` reads a request: its body, the endpoint of its url, the
 * headers the batch's creation carried (carried-headers.ts) and the line's own request id. So a line a
 * vendor runs in its own batch is checked and mapped exactly as the same call alone would be.
 */
import type { JsonObject } from '../../../core/kit/json';
import type { FamilyRequest } from '../../../core/kit/plugin';
import type { EndpointInfo } from '../../../core/kit/upstream';

export function lineContext(
  body: JsonObject,
  endpoint: EndpointInfo,
  headers: Readonly<Record<string, string>>,
  requestId: string,
): FamilyRequest {
  const raw = Buffer.from(JSON.stringify(body));
  return {
    headers,
    endpoint,
    requestId,
    rawBody: () => Promise.resolve(raw),
    json: () => Promise.resolve(body),
    get: () => undefined,
    streamRelayed: false,
    translated: false,
  };
}
