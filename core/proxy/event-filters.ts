/**
 * Stream events on their way through the stages' filters (the events phase), from the stage nearest the
 * upstream to the one nearest the client.
 */
import type { SseEvent } from '../base/sse';
import type { EventFilter } from '../contracts/stage';
import type { ClientEvents } from '../contracts/reader';

/** A filter that reads events (one without `event` only watches the stream's timing). */
export type EventReader = EventFilter & Required<Pick<EventFilter, 'event'>>;

export const isSeveral = (out: SseEvent | readonly SseEvent[]): out is readonly SseEvent[] =>
  Array.isArray(out);

/** The filters that read events, in order. */
export const readersOf = (filters: readonly EventFilter[]): EventReader[] =>
  filters.filter((f): f is EventReader => f.event !== undefined);

/** `events` through `readers[from…]`: what reaches the client. One event kept by all stays the same object. */
export function throughFilters(
  readers: readonly EventReader[],
  from: number,
  events: ClientEvents,
): ClientEvents {
  let out = events;
  for (let i = from; i < readers.length && out !== null; i++) {
    const reader = readers[i]!;
    out = isSeveral(out) ? out.flatMap((one) => reader.event(one) ?? []) : reader.event(out);
  }
  return out;
}

/** The upstream's stream ended: what each reader still held, through the readers after it. */
export function flushFilters(readers: readonly EventReader[]): SseEvent[] {
  const released: SseEvent[] = [];
  for (let i = 0; i < readers.length; i++) {
    const held = readers[i]!.flush?.();
    if (held === undefined || held === null) continue;
    const out = throughFilters(readers, i + 1, held);
    if (out !== null) released.push(...(isSeveral(out) ? out : [out]));
  }
  return released;
}

/** The stream is over: every filter lets go of what it keeps. */
export function closeFilters(filters: readonly EventFilter[]): void {
  for (const filter of filters) filter.close?.();
}
