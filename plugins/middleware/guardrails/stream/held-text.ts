/**
 * One run of streamed text (a choice's content, a tool call's arguments, a content block) as the rules see
 * it: each piece is added to the text held back so far, and what no possible match reaches into goes on
 * at once, masked. Text that could still become a match waits for the piece that settles it, up to
 * `bound` characters (a pattern without a length bound, `\S+`, would otherwise hold everything).
 */
import { decide, type Decision } from '../decide';
import type { Rule } from '../rules';
import { type Scanner, scannerFor } from '../finders/scanner';

/** Released text kept before the held text, so that `\b` and lookbehinds see what preceded it. */
const CONTEXT = 32;

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

export class HeldText {
  /** Released text (the last `CONTEXT` characters, as they came) and then the held text. */
  private text = '';
  /** Where the held text begins in `text`. */
  private from = 0;
  /** Everything released so far, as the client got it. */
  private sent = '';

  private readonly scanner: Scanner;

  constructor(
    private readonly rules: readonly Rule[],
    private readonly bound: number,
  ) {
    this.scanner = scannerFor(rules);
  }

  /** The text held back now. */
  get held(): string {
    return this.text.slice(this.from);
  }

  /** What the client has been given of this run, masks in place. */
  get released(): string {
    return this.sent;
  }

  /** Adds `piece`: what may go on now, and a block if a rule's match is complete. */
  push(piece: string): Decision {
    const text = this.text + piece;
    let until = this.scanner.openFrom(text, this.from);
    if (text.length - until > this.bound) until = text.length - this.bound;
    // A surrogate pair goes on whole: a client never gets half a character.
    if (until > this.from && isHighSurrogate(text.charCodeAt(until - 1))) until--;
    return this.settle(text, until);
  }

  /** The run is over: everything held is decided. */
  flush(): Decision {
    return this.settle(this.text, this.text.length);
  }

  private settle(text: string, until: number): Decision {
    const decision = decide(text, this.from, Math.max(until, this.from), this.rules);
    this.sent += decision.out;
    const keepFrom = Math.max(0, decision.end - CONTEXT);
    this.text = text.slice(keepFrom);
    this.from = decision.end - keepFrom;
    return decision;
  }
}
