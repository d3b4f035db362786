/**
 * Server-sent events: parsing with eventsource-parser (WHATWG rules: CR/LF/CRLF, comments, multi-line data,
 * events split across reads) and serialisation of the events the gateway writes.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export type SseEvent = Pick<EventSourceMessage, 'event' | 'data' | 'id'>;

/**
 * An event whose data is JSON its writer serialised, so one line: it is framed as it is. Any other
 * event's data is searched for line breaks first, a read that makes a string built in pieces flat, one
 * more copy of the whole event.
 */
export class JsonEvent implements SseEvent {
  constructor(
    readonly event: string | undefined,
    readonly data: string,
  ) {}
}

/** Serialises one event; multi-line data becomes several `data:` lines. */
export function serializeEvent(ev: SseEvent): string {
  if (ev instanceof JsonEvent)
    return ev.event === undefined ? `data: ${ev.data}\n\n` : `event: ${ev.event}\ndata: ${ev.data}\n\n`;
  let out = '';
  if (ev.event !== undefined) out += `event: ${ev.event}\n`;
  if (ev.id !== undefined) out += `id: ${ev.id}\n`;
  out += ev.data.includes('\n')
    ? `data: ${ev.data.split('\n').join('\ndata: ')}\n\n`
    : `data: ${ev.data}\n\n`;
  return out;
}

/**
 * Incremental byte-level SSE reader: decodes UTF-8 across chunk boundaries and emits whole events.
 * `end()` dispatches a last event that had no trailing blank line.
 */
export class SseReader {
  private readonly decoder = new TextDecoder();
  private readonly parser;

  constructor(onEvent: (ev: SseEvent) => void) {
    this.parser = createParser({ onEvent });
  }

  push(chunk: Buffer): void {
    this.parser.feed(this.decoder.decode(chunk, { stream: true }));
  }

  end(): void {
    this.parser.feed(this.decoder.decode() + '\n\n');
  }
}
