/**
 * How the kit compares a body with what a case lists: every member the case lists, and every array
 * exactly as long, so that a list the case gives in full cannot hold more than it says.
 */
import type { Test } from 'tap';

type Json = Record<string, unknown>;

/** Where `want` holds an array, the paths at which `got` holds none, or one of another length. */
function arraysOfOtherLength(got: unknown, want: unknown, path = ''): string[] {
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) return [path || '(the answer)'];
    return want.flatMap((w: unknown, i) => arraysOfOtherLength(got[i], w, `${path}[${i}]`));
  }
  if (want === null || typeof want !== 'object' || got === null || typeof got !== 'object') return [];
  return Object.entries(want).flatMap(([k, w]) => arraysOfOtherLength((got as Json)[k], w, `${path}.${k}`));
}

/**
 * `t.has`, with every array as long as the case's: `has` alone lets an array hold more than the case
 * lists, so `choices: []` (the usage chunk's, always empty in OpenAI's API) would match any choices.
 * `strict` compares as `t.hasStrict`: a member listed as undefined must be absent, and values keep their type.
 */
export function holds(t: Test, got: unknown, want: unknown, message: string, strict = false): void {
  if (strict) t.hasStrict(got, want, message);
  else t.has(got, want, message);
  const other = arraysOfOtherLength(got, want);
  if (other.length) t.fail(`${message}: arrays of another length at ${other.join(', ')}`);
}
