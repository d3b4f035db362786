/**
 * Finds one member of a JSON object's text without building the object: the value text of the last
 * top-level `"name": {…}`, as JSON.parse would keep it. Strings are skipped whole with indexOf, so a
 * response whose bulk is generated text costs a few jumps, where a parse allocates every string in it.
 *
 * Like core/http/json-body.ts's scan it only has to be right for text JSON.parse would accept: anything
 * it cannot place (unbalanced, not an object, a string never closed) gives undefined, and the caller
 * parses the whole body as before.
 */
import { CLOSE_ARRAY, CLOSE_OBJECT, OPEN_ARRAY, OPEN_OBJECT, QUOTE, stringEnd } from '../json';

/** The index of the first character after `from` that is not JSON whitespace. */
function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  return i;
}

/**
 * Whether `text` holds the characters of `name` from `at`. A loop rather than `startsWith(quoted, i)`:
 * V8's optimised code for that call concatenated strings hundreds of times a response (callgrind).
 */
function namedAt(text: string, at: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) if (text.charCodeAt(at + k) !== name.charCodeAt(k)) return false;
  return true;
}

/**
 * The text of the object value of the top-level member `name` in `text` (a JSON object), or undefined
 * when there is none, its value is not an object, or the text is not a balanced object.
 */
export function topLevelMember(text: string, name: string): string | undefined {
  const start = skipSpace(text, 0);
  if (text[start] !== '{') return undefined;
  let depth = 0;
  let valueStart = -1;
  let found: string | undefined;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      if (depth === 1 && end - i - 1 === name.length && namedAt(text, i + 1, name)) {
        const colon = skipSpace(text, end + 1);
        if (text[colon] === ':') {
          // A later member of the same name replaces an earlier one, as in JSON.parse.
          const value = skipSpace(text, colon + 1);
          found = undefined;
          valueStart = text[value] === '{' ? value : -1;
        }
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
    } else if (c !== CLOSE_OBJECT && c !== CLOSE_ARRAY) {
      continue;
    } else if (--depth === 0) {
      // The object closes here: only whitespace may follow it.
      return skipSpace(text, i + 1) === text.length ? found : undefined;
    } else if (depth === 1 && valueStart >= 0) {
      found = text.slice(valueStart, i + 1);
      valueStart = -1;
    }
  }
  return undefined;
}
