/**
 * Splits an upstream's SSE bytes into whole events ("frames") without decoding the stream, so the relay
 * can pass each event's own bytes on unchanged. Each frame that matters is also parsed, on its own, by
 * eventsource-parser (WHATWG field rules), so readers see the event's fields exactly as before.
 *
 * With a skim (the reader's test of which events it must read: its end, errors, usage), an event it
 * passes is neither decoded nor parsed: runs of such events are handed on as bytes. Most events of a
 * stream are generated text nobody but the client reads, and their parse was most of the relay's cost.
 *
 * An event ends at a blank line; lines end with LF, CRLF or CR. The bytes of an event not yet complete
 * are held until the rest arrives. Frame boundaries are ASCII, so a frame never splits a UTF-8 character.
 * The search runs on the bytes read as latin1, one character per byte, so a character's index is its
 * byte's offset and string searches stand in for calls into Buffer's C++ ones.
 */
import { isAscii } from 'node:buffer';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { SseEvent } from '../base/sse';

const LF = 0x0a;
const CR = 0x0d;
/** What the stream's end adds to dispatch a last event that had no blank line after it. */
const END_OF_STREAM = Buffer.from('\n\n');

/** One whole event that may matter: `buf[start, end)`, blank line included; `event` is undefined for comments alone. */
export type FrameHandler = (buf: Buffer, start: number, end: number, event: SseEvent | undefined) => void;

/** Which frames go on unparsed: those `reads` (given the frame's bytes as latin1) says no to. */
export interface Skim {
  readonly reads: (frame: string) => boolean;
  /** Whole events `buf[start, end)` passed unread, in stream order with the frames around them. */
  readonly onRun: (buf: Buffer, start: number, end: number) => void;
}

/** The end of the first event from `from` when the text holds no CR: just past its `\n\n`, or -1. */
function lfEventEnd(text: string, from: number): number {
  const at = text.indexOf('\n\n', from);
  return at < 0 ? -1 : at + 2;
}

/** The end of the first event from `from`, whatever the line ends: just past its blank line, or -1. */
function anyEventEnd(text: string, from: number): number {
  let lineStart = from;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== LF && c !== CR) continue;
    let next = i + 1;
    if (c === CR) {
      if (next === text.length) return -1; // a CR last: wait, it may be the first half of a CRLF
      if (text.charCodeAt(next) === LF) next++;
    }
    if (i === lineStart) return next;
    lineStart = next;
    i = next - 1;
  }
  return -1;
}

/**
 * `buf[start, end)`: the read itself when that is all of it, as it mostly is (an upstream writes an event
 * at a time, and each arrives as a read of its own). A subarray is no cheap view: TypedArray's species
 * protocol looks up `constructor` and `Symbol.species` through the IC and runs Buffer's constructor, for
 * an object per read.
 */
export const part = (buf: Buffer, start: number, end: number): Buffer =>
  start === 0 && end === buf.length ? buf : buf.subarray(start, end);

export class SseFrames {
  private held: Buffer | undefined;
  private parsed: SseEvent | undefined;
  private readonly parser: EventSourceParser;

  constructor(
    private readonly onFrame: FrameHandler,
    /** Absent: every frame is parsed and goes to `onFrame`. */
    private readonly skim?: Skim,
  ) {
    this.parser = createParser({ onEvent: (ev) => (this.parsed = ev) });
  }

  push(chunk: Buffer): void {
    const { skim } = this;
    const buf = this.held ? Buffer.concat([this.held, chunk]) : chunk;
    this.held = undefined;
    const text = buf.toString('latin1');
    // Without a skim every frame is parsed: when the read is ASCII, as a stream mostly is, its latin1 text
    // is its UTF-8 text too, and frames are not decoded again.
    const decoded = !skim && isAscii(buf);
    const lfOnly = text.indexOf('\r') < 0;
    let runStart = -1;
    let start = 0;
    for (;;) {
      const end = lfOnly ? lfEventEnd(text, start) : anyEventEnd(text, start);
      if (end < 0) break;
      const frame = text.slice(start, end);
      if (skim && !skim.reads(frame)) {
        if (runStart < 0) runStart = start;
      } else {
        if (runStart >= 0) skim!.onRun(buf, runStart, start);
        runStart = -1;
        this.parse(buf, start, end, decoded ? frame : undefined);
      }
      start = end;
    }
    if (runStart >= 0) skim!.onRun(buf, runStart, start);
    if (start < buf.length) this.held = part(buf, start, buf.length);
  }

  /** The upstream ended: a last event without its blank line is still dispatched. */
  end(): void {
    if (this.held) this.push(END_OF_STREAM);
    this.held = undefined;
  }

  /** A frame read in full, `decoded` its text when known: its event (if any) goes to `onFrame` with its bytes. */
  private parse(buf: Buffer, start: number, end: number, decoded: string | undefined): void {
    // A frame ends with its blank line, so the parser dispatches its event (if any) within this feed.
    this.parsed = undefined;
    const text = decoded ?? buf.toString('utf8', start, end);
    // A frame may end with a lone CR (the next byte was not LF); the parser, unable to know that, would
    // wait for the next byte before dispatching: the LF ends that line for it at once.
    this.parser.feed(buf[end - 1] === CR ? `${text}\n` : text);
    this.onFrame(buf, start, end, this.parsed);
  }
}
