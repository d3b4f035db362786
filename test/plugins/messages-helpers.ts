/**
 * Shared by the messages tests: the models the modeld plugin serves, and a POST to `/v1/messages` that
 * carries the version header and a request id of the test's choosing.
 */
import { testCatalogue } from '../helpers/catalogue';
import type { TestGateway } from '../helpers/gateway';
import { postJson, type JsonResponse } from '../helpers/http';

/** The models the test gateway serves through its modeld upstream. */
export const MODELD: readonly string[] = testCatalogue().of('modeld');

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
