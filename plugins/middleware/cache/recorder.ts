/**
 * A missed call's answer on its way to the client, kept to be stored once the call ends well: a JSON
 * body (the response phase), or a stream's events as the client gets them from the stages nearer the
 * upstream (this filter, which passes every event on as it is).
 */
import type { SseEvent } from '../../../core/kit/plugin';
import type { EventFilter, StreamEnd } from '../../../core/kit/stage';
import { eventSize, type EntryBody } from './entry';

export interface Pending {
  /** The entry's key (cache-key.ts). */
  readonly key: string;
  /** The model the client asked for. */
  readonly model: string;
  /** The answer to store; undefined until one is complete, and while it is over `max_entry_size`. */
  body: EntryBody | undefined;
  /** Set when a stage nearer the upstream changed what the cache saw: it is not stored. */
  changed: boolean;
}

export class Recorder implements EventFilter {
  private readonly events: SseEvent[] = [];
  private bytes = 0;

  constructor(
    private readonly pending: Pending,
    private readonly maxBytes: number,
  ) {}

  event(ev: SseEvent): SseEvent {
    if (this.bytes <= this.maxBytes) {
      this.events.push(ev);
      this.bytes += eventSize(ev);
    }
    return ev;
  }

  close(end: StreamEnd): void {
    this.pending.changed ||= end.changed;
    if (this.bytes <= this.maxBytes) this.pending.body = this.events;
  }
}
