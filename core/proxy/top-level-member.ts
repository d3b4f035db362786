/**
 * Finds one member of a JSON object's text without building the object: the value text of the last
 * top-level `"name": {…}`, as JSON.parse would keep it. Strings are skipped whole with indexOf, so a
 * response whose bulk is generated text costs a few jumps, where a parse allocates every string in it.
 *
 * Vendors write `usage` near the end of a response, so the last `"name"` in the text is tried first and
 * only the text after it is read: if it is a key whose object closes the whole text, it is the last
 * top-level member of that name. Anything else (a nested key, the name as a value or inside a string)
 * falls back to reading the whole text from the start.
 *
 * Like core/http/json-body.ts's scan it only has to be right for text JSON.parse would accept: the whole
 * text read from the start gives undefined for anything it cannot place (unbalanced, not an object, a
 * string never closed), and the caller parses the whole body as before. Read from the end, text before
 * the member is not checked: a malformed body whose last member is a well-formed `usage` is billed by it.
 */
import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  escapedAt,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  stringEnd,
} from '../base/json';

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

/** The answer of `fromTheEnd` when the text after the last `"name"` does not settle it. */
const UNSETTLED = null;

/**
 * The member read from the last `"name"` in `text` to the end: its object's text, undefined when the
 * name is nowhere or the last top-level member of that name is no object, or UNSETTLED.
 */
function fromTheEnd(text: string, quotedName: string): string | undefined | typeof UNSETTLED {
  const at = text.lastIndexOf(quotedName);
  if (at < 0) return undefined;
  if (escapedAt(text, at)) return UNSETTLED;
  const colon = skipSpace(text, at + quotedName.length);
  if (text.charCodeAt(colon) !== COLON) return UNSETTLED;
  const value = skipSpace(text, colon + 1);
  let depth = 0;
  let valueEnd = -1;
  for (let i = value; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0) return UNSETTLED;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (--depth === 0 && valueEnd < 0) valueEnd = i;
      // The object holding the key closes: it must be the whole text's.
      if (depth < 0) {
        if (skipSpace(text, i + 1) !== text.length) return UNSETTLED;
        return text.charCodeAt(value) === OPEN_OBJECT ? text.slice(value, valueEnd + 1) : undefined;
      }
    }
  }
  return UNSETTLED;
}

/**
 * The text of the object value of the top-level member `name` in `text` (a JSON object), or undefined
 * when there is none, its value is not an object, or the text is not a balanced object.
 */
export function topLevelMember(text: string, name: string): string | undefined {
  const start = skipSpace(text, 0);
  if (text[start] !== '{') return undefined;
  const settled = fromTheEnd(text, `"${name}"`);
  return settled === UNSETTLED ? fromTheStart(text, start, name) : settled;
}

/** The member as the whole text, read from its first character `start`, places it. */
function fromTheStart(text: string, start: number, name: string): string | undefined {
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
