/**
 * Stream events on their way through the stages' filters (the events phase), from the stage nearest the
 * upstream to the one nearest the client.
 */
import type { SseEvent } from '../base/sse';
import type { EventFilter } from '../contracts/stage';
import type { ClientEvents } from '../contracts/reader';

/** A filter that reads events (one without `event` only watches the stream's timing). */
type EventReader = EventFilter & Required<Pick<EventFilter, 'event'>>;

export const isSeveral = (out: SseEvent | readonly SseEvent[]): out is readonly SseEvent[] =>
  Array.isArray(out);

/** One stream's filters, nearest the upstream first, and which of them changed what they were given. */
export class FilterChain {
  /** The filters that read events, in order. */
  readonly readers: readonly EventReader[];
  /** The place among `readers` of the first that changed, dropped or held back an event; `readers.length`: none. */
  private firstChanger: number;

  constructor(readonly filters: readonly EventFilter[]) {
    this.readers = filters.filter((f): f is EventReader => f.event !== undefined);
    this.firstChanger = this.readers.length;
  }

  /** `events` through `readers[from…]`: what reaches the client. One event kept by all stays the same object. */
  through(from: number, events: ClientEvents): ClientEvents {
    const { readers } = this;
    let out = events;
    for (let i = from; i < readers.length && out !== null; i++) {
      const given = out;
      out = isSeveral(given) ? given.flatMap((one) => this.pass(i, one) ?? []) : this.pass(i, given);
    }
    return out;
  }

  /** The upstream's stream ended: what each reader still held, through the readers after it. */
  flush(): SseEvent[] {
    const released: SseEvent[] = [];
    for (let i = 0; i < this.readers.length; i++) {
      const held = this.readers[i]!.flush?.();
      if (held === undefined || held === null) continue;
      const out = this.through(i + 1, held);
      if (out !== null) released.push(...(isSeveral(out) ? out : [out]));
    }
    return released;
  }

  /** The stream is over: every filter lets go of what it keeps, told whether a stage nearer the upstream changed it. */
  close(): void {
    let readersBefore = 0;
    for (const filter of this.filters) {
      filter.close?.({ changed: this.firstChanger < readersBefore });
      if (filter.event !== undefined) readersBefore++;
    }
  }

  private pass(i: number, ev: SseEvent): ClientEvents {
    const out = this.readers[i]!.event(ev);
    if (out !== ev && i < this.firstChanger) this.firstChanger = i;
    return out;
  }
}
