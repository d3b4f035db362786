import type { BatchLine } from '../batch-runs/line';
import { isRecord } from '../is-record';
import { SimErrors, type SimError } from '../sim-error';

/** The vendor's ceiling on requests a batch. */
const MAX_REQUESTS = 100_000;
/** What a `custom_id` may be, as the vendor checks it. */
const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

const invalid = (param: string, why: string): SimError => SimErrors.invalidParam(param, `${param}: ${why}`);

function readRequest(value: unknown, i: number): BatchLine {
  const at = `requests.${i}`;
  if (!isRecord(value)) throw invalid(at, 'Input should be an object with custom_id and params');
  const { custom_id: customId, params } = value;
  if (customId === undefined) throw invalid(`${at}.custom_id`, 'Field required');
  if (typeof customId !== 'string' || !CUSTOM_ID.test(customId)) {
    throw invalid(`${at}.custom_id`, `String should match pattern '${CUSTOM_ID.source}'`);
  }
  if (params === undefined) throw invalid(`${at}.params`, 'Field required');
  if (!isRecord(params)) throw invalid(`${at}.params`, 'Input should be an object');
  return { customId, body: params };
}

/**
 * Validates a create body as the vendor does at the front door: the envelope of each request, and
 * unique ids. Each `params` is a Messages request, checked when its turn comes (an `errored` result).
 * @throws SimError 400 naming the field at fault, e.g. `requests.0.custom_id: …`.
 */
export function parseBatchRequests(body: unknown): BatchLine[] {
  if (!isRecord(body)) throw SimErrors.invalidParam('body', 'The request body must be a JSON object.');
  const { requests } = body;
  if (requests === undefined) throw invalid('requests', 'Field required');
  if (!Array.isArray(requests) || requests.length === 0 || requests.length > MAX_REQUESTS) {
    throw invalid('requests', `Input should be a list of 1 to ${MAX_REQUESTS} requests`);
  }
  const lines = requests.map(readRequest);
  const seen = new Set<string>();
  for (const { customId } of lines) {
    if (seen.has(customId))
      throw invalid('requests', `Duplicate custom_id '${customId}': each must be unique`);
    seen.add(customId);
  }
  return lines;
}
