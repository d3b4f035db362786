/** The events a shape writes of its own (a held rest, a blocked stream's end), in the API's framing. */
import type { JsonObject } from '../../../../../core/kit/json';
import { JsonEvent, type SseEvent } from '../../../../../core/kit/plugin';

/** An event of the shape's own, its JSON written once; `named`: with the SSE event name its `type`. */
export function madeEvent(payload: JsonObject & { readonly type?: string }, named: boolean): SseEvent {
  const data = JSON.stringify(payload);
  return new JsonEvent(named ? payload.type : undefined, data);
}
