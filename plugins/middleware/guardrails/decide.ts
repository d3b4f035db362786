/**
 * What the rules make of a text: the part that can be decided now, masked, and the first block. Shared by
 * whole texts (a request, a JSON answer: everything is decided) and a stream's held text (only what no
 * possible match reaches into).
 */
import type { Found } from './finders/matcher';
import type { Rule } from './rules';

/** One match of one rule's finder. */
interface Hit extends Found {
  readonly rule: Rule;
  readonly placeholder: string;
}

export interface Decision {
  /** `text[from, end)` with its masked matches replaced: what may go on. */
  readonly out: string;
  /** Where the decided text ends in `text`: the rest is held (a stream) or there is none (a whole text). */
  readonly end: number;
  /** The rule that blocks, when one matched: `out` is then the text before its match. */
  readonly blocked: Rule | undefined;
  /** The rules that acted (masked, logged, blocked), each once. */
  readonly acted: readonly Rule[];
}

/** Every final match (beginning before `until`) of `rules`, by position. Indexed loops: run per stream piece. */
function hitsBefore(text: string, from: number, until: number, rules: readonly Rule[]): Hit[] {
  const hits: Hit[] = [];
  for (let r = 0; r < rules.length; r++) {
    const rule = rules[r]!;
    for (let m = 0; m < rule.matchers.length; m++) {
      const matcher = rule.matchers[m]!;
      const found = matcher.find(text, from);
      for (let f = 0; f < found.length && found[f]!.start < until; f++)
        hits.push({ start: found[f]!.start, end: found[f]!.end, rule, placeholder: matcher.placeholder });
    }
  }
  return hits.length < 2 ? hits : hits.sort((a, b) => a.start - b.start || b.end - a.end);
}

/**
 * Decides `text[from, until)`; a match that begins there and runs past `until` is decided whole. A block
 * stops the text at its match, before any of it (and before a mask's match that runs into it). Of masks'
 * matches that overlap, the first (the longest, of those beginning together) is replaced.
 */
export function decide(text: string, from: number, until: number, rules: readonly Rule[]): Decision {
  const hits = hitsBefore(text, from, until, rules);
  if (hits.length === 0) return clean(text, from, until);
  const block = hits.find((hit) => hit.rule.action === 'block');
  const stop = block ? block.start : text.length;
  const acted = new Set<Rule>(block ? [block.rule] : []);
  let out = '';
  let at = from;
  let end = until;
  for (const hit of hits) {
    if (hit.start >= stop) break;
    if (hit.rule.action === 'block') continue;
    acted.add(hit.rule);
    end = Math.max(end, hit.end);
    if (hit.rule.action !== 'mask' || hit.start < at) continue; // logged, or inside a mask's match
    if (hit.end > stop)
      return {
        out: out + text.slice(at, hit.start),
        end: hit.start,
        blocked: block?.rule,
        acted: [...acted],
      };
    out += text.slice(at, hit.start) + hit.placeholder;
    at = hit.end;
  }
  if (block) return { out: out + text.slice(at, stop), end: stop, blocked: block.rule, acted: [...acted] };
  return { out: out + text.slice(at, end), end, blocked: undefined, acted: [...acted] };
}

const NONE: readonly Rule[] = Object.freeze([]);

/** `text[from, until)` that no match begins in: it goes on as it is. */
const clean = (text: string, from: number, until: number): Decision => ({
  out: from === 0 && until === text.length ? text : text.slice(from, until),
  end: until,
  blocked: undefined,
  acted: NONE,
});

/** A whole text, decided at once. */
export const inspect = (text: string, rules: readonly Rule[]): Decision =>
  decide(text, 0, text.length, rules);
