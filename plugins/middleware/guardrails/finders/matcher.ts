/**
 * What finds one kind of text for a rule: a pattern from gateway.yaml, or a PII detector. Both answer the
 * same two questions, on the whole text of a request and on the growing text of a stream.
 */

/** One match: `text.slice(start, end)`. */
export interface Found {
  readonly start: number;
  readonly end: number;
}

/** A regex finder's sources, so that a rule set's finders can scan as one regex (scanner.ts). */
export interface MatcherForm {
  readonly source: string;
  /** Its open form's source (open-match.ts). */
  readonly open: string;
  /** The flags both are compiled with. */
  readonly flags: string;
}

export interface Matcher {
  /** What replaces a match when its rule masks (`[EMAIL]`). */
  readonly placeholder: string;
  /** The regexes behind it, when it is made of regexes. */
  readonly form?: MatcherForm;
  /**
   * The matches in `text` that begin at or after `from`, leftmost first and not overlapping. A candidate
   * a detector's check refuses (a number that fails Luhn) is not a match.
   */
  find(text: string, from: number): readonly Found[];
  /**
   * Where the earliest possible match that more text could still complete begins (at or after `from`),
   * or `text.length` when none: the text before it is decided, whatever follows. A stream releases text
   * up to there and holds the rest. A match that ends at `text.length` is such a beginning too (a longer
   * one may follow: `\d+`, a longer card number).
   */
  openFrom(text: string, from: number): number;
}
