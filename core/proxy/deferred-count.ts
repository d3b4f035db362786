/**
 * A count of what a stream delivered, read from its events only if it is ever needed. A stream's estimate
 * (the generated characters that reached the client) matters only when the upstream never reports usage:
 * a cut stream, or a vendor that leaves it out. So events are kept as text (or as the stream's own
 * bytes) and read at the first `total()`; past `maxHeld` characters they are read and dropped, which
 * bounds the memory a long stream holds to that.
 */
import { SseReader } from '../base/sse';

/** Enough for most whole replies, small beside what a stream's socket buffers hold. */
const MAX_HELD_CHARS = 64 * 1024;

/** Each event's data in whole SSE frames (StreamSkim.passed hands a reader such bytes). */
function eventData(frames: Buffer): string[] {
  const data: string[] = [];
  const reader = new SseReader((ev) => data.push(ev.data));
  reader.push(frames);
  reader.end();
  return data;
}

export class DeferredCount {
  private counted = 0;
  /** Texts to count, or whole SSE frames whose events' data are to be counted. */
  private held: (string | Buffer)[] = [];
  private heldChars = 0;

  constructor(
    /** What one held text counts; it must not throw. */
    private readonly count: (text: string) => number,
    private readonly maxHeld = MAX_HELD_CHARS,
  ) {}

  /** Adds what `text` counts, read later if at all. */
  later(text: string): void {
    this.hold(text);
  }

  /** Adds what the data of each event in `frames` (whole SSE events) counts, read later if at all. */
  laterFrames(frames: Buffer): void {
    this.hold(frames);
  }

  /** Adds a count already known. */
  add(n: number): void {
    this.counted += n;
  }

  total(): number {
    this.readHeld();
    return this.counted;
  }

  private hold(item: string | Buffer): void {
    this.held.push(item);
    this.heldChars += item.length;
    if (this.heldChars > this.maxHeld) this.readHeld();
  }

  private readHeld(): void {
    for (const item of this.held) {
      if (typeof item === 'string') this.counted += this.count(item);
      else for (const data of eventData(item)) this.counted += this.count(data);
    }
    this.held = [];
    this.heldChars = 0;
  }
}
