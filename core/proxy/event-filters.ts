/**
 * Stream events on their way through the stages' filters (the events phase), from the stage nearest the
 * upstream to the one nearest the client.
 */
import type { SseEvent } from '../base/sse';
import type { EventFilter } from '../contracts/stage';
import type { ClientEvents } from '../contracts/reader';

export const isSeveral = (out: SseEvent | readonly SseEvent[]): out is readonly SseEvent[] =>
  Array.isArray(out);

/** `events` through `filters[from…]`: what reaches the client. One event kept by all stays the same object. */
export function throughFilters(
  filters: readonly EventFilter[],
  from: number,
  events: ClientEvents,
): ClientEvents {
  let out = events;
  for (let i = from; i < filters.length && out !== null; i++) {
    const filter = filters[i]!;
    out = isSeveral(out) ? out.flatMap((one) => filter.event(one) ?? []) : filter.event(out);
  }
  return out;
}

/** The upstream's stream ended: what each filter still held, through the filters after it. */
export function flushFilters(filters: readonly EventFilter[]): SseEvent[] {
  const released: SseEvent[] = [];
  for (let i = 0; i < filters.length; i++) {
    const held = filters[i]!.flush?.();
    if (held === undefined || held === null) continue;
    const out = throughFilters(filters, i + 1, held);
    if (out !== null) released.push(...(isSeveral(out) ? out : [out]));
  }
  return released;
}
