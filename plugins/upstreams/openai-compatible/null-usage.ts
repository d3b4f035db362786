/**
 * A stream chunk's `"usage"` and `"error"` keys found in its text, cheaply, and the `"usage":null` member
 * that OpenAI-compatible vendors put on every stream chunk but the last once usage was asked for, found
 * and cut there: the rest of the chunk goes on byte for byte, and the chunk is not parsed. Anything less
 * plain (spaces, a second `"usage"`) is left to the parser.
 */
import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COMMA,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  stringEnd,
} from '../../../core/kit';

const MEMBER = '"usage":null';

/**
 * Searches look for the keys' ends, which every occurrence of the key contains: V8 finds a pattern by
 * memchr on its first character, and `"`, JSON's commonest character, made each search about four times
 * slower (`npm run bench:instructions`). A match not preceded by the quote is looked at again.
 */
const USAGE_END = 'usage"';
/** Of `"error"`: see USAGE_END. */
export const ERROR_END = 'rror"';

/** Where `"usage"` first appears in `data`, or -1. */
export function usageKeyAt(data: string): number {
  const at = data.indexOf(USAGE_END);
  if (at < 0) return -1;
  return data.charCodeAt(at - 1) === QUOTE ? at - 1 : data.indexOf('"usage"');
}

/** How deep `at` lies in the JSON text `data`: 1 inside the outermost object; -1 inside a string. */
function depthAt(data: string, at: number): number {
  let depth = 0;
  for (let i = 0; i < at; i++) {
    const c = data.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(data, i); // strings are skipped whole
      if (i < 0 || i >= at) return -1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return depth;
}

/**
 * Whether `"usage"`, first found at `usageAt`, begins a `"usage":null` member and appears nowhere else: the
 * chunk then holds no usage figures. Outside a string that text can only be a key with a null value, and
 * inside one its quotes would be escaped, so no depth need be checked.
 */
export const holdsOnlyNullUsage = (data: string, usageAt: number): boolean =>
  data.startsWith(MEMBER, usageAt) && !data.includes(USAGE_END, usageAt + MEMBER.length);

/**
 * `data` without its top-level `"usage":null` member, where `"usage"` first appears at `usageAt`; or
 * undefined when that is not a plain top-level null member (the caller then parses the chunk).
 */
export function withoutNullUsage(data: string, usageAt: number): string | undefined {
  if (!holdsOnlyNullUsage(data, usageAt) || depthAt(data, usageAt) !== 1) return undefined;
  const end = usageAt + MEMBER.length;
  if (data.charCodeAt(end) === COMMA) return data.slice(0, usageAt) + data.slice(end + 1);
  if (data.charCodeAt(usageAt - 1) === COMMA) return data.slice(0, usageAt - 1) + data.slice(end);
  if (data.charCodeAt(usageAt - 1) === OPEN_OBJECT && data.charCodeAt(end) === CLOSE_OBJECT)
    return data.slice(0, usageAt) + data.slice(end);
  return undefined;
}
