/**
 * Splits an upstream's SSE bytes into whole events ("frames") without decoding the stream, so the relay
 * can pass each event's own bytes on unchanged. Each frame is also parsed, on its own, by
 * eventsource-parser (WHATWG field rules), so readers see the event's fields exactly as before.
 *
 * An event ends at a blank line; lines end with LF, CRLF or CR. The bytes of an event not yet complete
 * are held until the rest arrives. Frame boundaries are ASCII, so a frame never splits a UTF-8 character.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { SseEvent } from '../base/sse';

const LF = 0x0a;
const CR = 0x0d;
const BLANK_LINE = Buffer.from('\n\n');
/** What the stream's end adds to dispatch a last event that had no blank line after it. */
const END_OF_STREAM = Buffer.from('\n\n');

/** One whole event: `buf[start, end)`, blank line included; `event` is undefined for comments alone. */
export type FrameHandler = (buf: Buffer, start: number, end: number, event: SseEvent | undefined) => void;

/** The end of the first event from `from` when the bytes hold no CR: just past its `\n\n`, or -1. */
function lfEventEnd(buf: Buffer, from: number): number {
  const at = buf.indexOf(BLANK_LINE, from);
  return at < 0 ? -1 : at + 2;
}

/** The end of the first event from `from`, whatever the line ends: just past its blank line, or -1. */
function anyEventEnd(buf: Buffer, from: number): number {
  let lineStart = from;
  for (let i = from; i < buf.length; i++) {
    const c = buf[i];
    if (c !== LF && c !== CR) continue;
    let next = i + 1;
    if (c === CR) {
      if (next === buf.length) return -1; // a CR last: wait, it may be the first half of a CRLF
      if (buf[next] === LF) next++;
    }
    if (i === lineStart) return next;
    lineStart = next;
    i = next - 1;
  }
  return -1;
}

export class SseFrames {
  private held: Buffer | undefined;
  private parsed: SseEvent | undefined;
  private readonly parser: EventSourceParser;

  constructor(private readonly onFrame: FrameHandler) {
    this.parser = createParser({ onEvent: (ev) => (this.parsed = ev) });
  }

  push(chunk: Buffer): void {
    const buf = this.held ? Buffer.concat([this.held, chunk]) : chunk;
    this.held = undefined;
    const lfOnly = buf.indexOf(CR) < 0;
    let start = 0;
    for (;;) {
      const end = lfOnly ? lfEventEnd(buf, start) : anyEventEnd(buf, start);
      if (end < 0) break;
      // A frame ends with its blank line, so the parser dispatches its event (if any) within this feed.
      this.parsed = undefined;
      const text = buf.toString('utf8', start, end);
      // A frame may end with a lone CR (the next byte was not LF); the parser, unable to know that, would
      // wait for the next byte before dispatching: the LF ends that line for it at once.
      this.parser.feed(buf[end - 1] === CR ? `${text}\n` : text);
      this.onFrame(buf, start, end, this.parsed);
      start = end;
    }
    if (start < buf.length) this.held = buf.subarray(start);
  }

  /** The upstream ended: a last event without its blank line is still dispatched. */
  end(): void {
    if (this.held) this.push(END_OF_STREAM);
    this.held = undefined;
  }
}
