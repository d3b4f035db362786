/**
 * Where a translated stream's events are written: each gets its `sequence_number`, counting from 0
 * across the whole stream as the API numbers them, and the SSE event name the API gives it, its `type`.
 */
import type { JsonObject } from '../../../core/kit/json';
import type { SseEvent } from '../../../core/kit/plugin';

export class EventSink {
  private next = 0;
  private pending: SseEvent[] = [];

  /** Writes the event `type` with its `members`. */
  emit(type: string, members: JsonObject): void {
    const payload = { type, ...members, sequence_number: this.next++ };
    this.pending.push({ event: type, data: JSON.stringify(payload) });
  }

  /** The events written since the last call. */
  take(): SseEvent[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }
}

/** An event's bytes on the wire (its data is one line of JSON). */
export const frameOf = (ev: SseEvent): string => `event: ${String(ev.event)}\ndata: ${ev.data}\n\n`;
