/**
 * Where the APIs' answers state why generation stopped, for `gen_ai.response.finish_reasons` (each API's
 * `genAi.finishReasons` names its reader).
 */
import { isJsonObject, type JsonObject } from '../../core/kit/json';

/** The string values of `member` in each object of `items` (an array, or one object); undefined for none. */
export function stringsOf(items: unknown, member: string): string[] | undefined {
  const found: string[] = [];
  for (const item of Array.isArray(items) ? items : [items]) {
    const value: unknown = isJsonObject(item) ? item[member] : undefined;
    if (typeof value === 'string') found.push(value);
  }
  return found.length > 0 ? found : undefined;
}

/** The stream events that carry a finished Response; the others carry it while it is still running. */
const RESPONSE_ENDS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * A Response's end: why it is incomplete (`max_output_tokens`, `content_filter`) when it is, else its
 * status. Read from the Response itself (a JSON answer) or from the stream event that ends it.
 */
export function responseFinish(answer: JsonObject): string[] | undefined {
  const event = typeof answer.type === 'string';
  if (event && !RESPONSE_ENDS.has(answer.type as string)) return undefined;
  const response = event ? answer.response : answer;
  if (!isJsonObject(response) || response.object !== 'response') return undefined;
  const incomplete = isJsonObject(response.incomplete_details)
    ? response.incomplete_details.reason
    : undefined;
  if (typeof incomplete === 'string') return [incomplete];
  return typeof response.status === 'string' ? [response.status] : undefined;
}
