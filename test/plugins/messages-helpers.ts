/**
 * Shared by the messages tests: the four models in the contract's column order, and a POST to
 * `/v1/messages` that carries the version header and a request id of the test's choosing.
 */
import type { TestGateway } from '../helpers/gateway';
import { postJson, type JsonResponse } from '../helpers/http';

/** The contract's messages models, in the order of its model table. */
export const MODELD = [
  'modeld-sonnet-4-6',
  'modeld-opus-4-8',
  'modeld-sonnet-4-5-20250929',
  'modeld-opus-4-6',
];

export const VERSION = { 'modeld-version': '2023-06-01' };

/** A valid minimal body for `model`. */
export const minimal = (model: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model,
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

/** POSTs a messages request with the gateway key, the version header and `x-request-id: id`. */
export function messages(
  gw: TestGateway,
  body: unknown,
  id: string,
  headers: Record<string, string> = VERSION,
): Promise<JsonResponse> {
  return postJson(`${gw.url}/v1/messages`, body, gw.key, { 'x-request-id': id, ...headers });
}
