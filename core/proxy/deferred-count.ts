/**
 * A count of what a stream delivered, read from its events only if it is ever needed. A stream's estimate
 * (the generated characters that reached the client) matters only when the upstream never reports usage:
 * a cut stream, or a vendor that leaves it out. So events are kept as text and read at the first
 * `total()`; past `maxHeld` characters of text they are read and dropped, which bounds the memory a long
 * stream holds to that.
 */

/** Enough for most whole replies, small beside what a stream's socket buffers hold. */
const MAX_HELD_CHARS = 64 * 1024;

export class DeferredCount {
  private counted = 0;
  private held: string[] = [];
  private heldChars = 0;

  constructor(
    /** What one held text counts; it must not throw. */
    private readonly count: (text: string) => number,
    private readonly maxHeld = MAX_HELD_CHARS,
  ) {}

  /** Adds what `text` counts, read later if at all. */
  later(text: string): void {
    this.held.push(text);
    this.heldChars += text.length;
    if (this.heldChars > this.maxHeld) this.readHeld();
  }

  /** Adds a count already known. */
  add(n: number): void {
    this.counted += n;
  }

  total(): number {
    this.readHeld();
    return this.counted;
  }

  private readHeld(): void {
    for (const text of this.held) this.counted += this.count(text);
    this.held = [];
    this.heldChars = 0;
  }
}
