import type { SseEvent } from '../base/sse';
import type { ClientEvents } from './reader';

/** What a reader returned for one event, as a list: how a reader wrapping another reads its answers. */
export const eventsOf = (out: ClientEvents): readonly SseEvent[] =>
  out === null ? [] : Array.isArray(out) ? (out as readonly SseEvent[]) : [out as SseEvent];
