/**
 * A stream chunk's `"usage"` and `"error"` keys found in its text, cheaply, and the `"usage":null` member
 * that OpenAI-compatible vendors put on every stream chunk but the last once usage was asked for, found
 * and cut there: the rest of the chunk goes on byte for byte, and the chunk is not parsed. Anything less
 * plain (spaces, a second `"usage"`) is left to the parser.
 */
import { withoutMember } from '../../../core/kit/json';

const MEMBER = '"usage":null';
const QUOTE = 0x22;

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
export const withoutNullUsage = (data: string, usageAt: number): string | undefined =>
  holdsOnlyNullUsage(data, usageAt) ? withoutMember(data, usageAt, MEMBER.length) : undefined;
