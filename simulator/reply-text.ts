import type { Call } from './call';
import { CHARS_PER_TOKEN } from './token-count';

export { tokensOf } from './token-count';

/**
 * The deterministic text every family's replies are made of, and the token arithmetic behind
 * their usage counts. Shared so that one request gets the same words whichever family serves it.
 */

/** Completion tokens per reply (per choice) when no `tokens` control is given. */
export const DEFAULT_TOKENS = 12;

/** Words of a reply's answer. */
export const LOREM = [
  'Lorem',
  'ipsum',
  'dolor',
  'sit',
  'amet',
  'consectetur',
  'adipiscing',
  'elit',
  'sed',
  'do',
];
/** Words of a reply's reasoning. */
export const MUSING = ['Let', 'me', 'think', 'this', 'through', 'step', 'by', 'step', 'first'];
/** Tool-call arguments, split exactly as a vendor streams `{"city":"Paris"}`; one token each. */
export const TOOL_ARG_FRAGMENTS: readonly string[] = ['{"', 'city', '":"', 'Paris', '"}'];

/** Deterministic words, one per token; `offset` makes each choice read differently. */
export function words(list: readonly string[], count: number, offset: number): string[] {
  const out = new Array<string>(count);
  for (let i = 0; i < count; i++) {
    const word = list[(i + offset) % list.length] ?? '';
    out[i] = i === 0 ? word : ` ${word}`;
  }
  return out;
}

/** Cuts text into token-sized pieces without separating a surrogate pair. */
export function pieces(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length;) {
    let end = Math.min(at + CHARS_PER_TOKEN, text.length);
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff && end < text.length) end++;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

/** The `echo` reply: what the simulator received, as it received it (a batch line: its body, no headers). */
export const echoText = (call: Call): string => JSON.stringify({ headers: call.headers, body: call.body });
