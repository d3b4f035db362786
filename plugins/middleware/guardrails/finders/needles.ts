/**
 * What every match of a pattern must contain, read from its syntax tree: a run of plain characters
 * (`.corp.internal`, `@`). A text without it holds no match, and the pattern need not run over it. V8
 * searches a pattern by the literal it begins with, not by one further in: `[a-z0-9-]+\.corp\.internal`
 * is tried from every letter, an address's `@` looked for after each word. Most texts a guardrail reads
 * match nothing; for such patterns this turns their scan into a search for a string.
 *
 * The needles are a necessary condition, never more. A gate is made only of plain string searches (one
 * or two): a class, a case-insensitive literal or many alternatives cost a scan about as long as the
 * pattern's own, and a pattern without such a needle runs on every text, as it would without this.
 */
import type { AST } from '@eslint-community/regexpp';

/** A test a text must pass to hold a match: `true` when it may hold one. */
export type Gate = (text: string) => boolean;

/** Searches a gate may take before it costs about what the pattern's own scan does. */
const MOST_SEARCHES = 2;

/** A string every match contains, or (`any`) one of several strings. */
type Needle = string | readonly string[];

/** The longest string every match of a sequence contains (undefined when none is known). */
function sequence(elements: readonly AST.Element[]): Needle | undefined {
  let found: Needle | undefined;
  let run = '';
  const keep = (needle: Needle | undefined): void => {
    if (needle !== undefined && (found === undefined || narrowing(needle) > narrowing(found))) found = needle;
  };
  for (const element of elements) {
    if (element.type === 'Character') {
      run += String.fromCodePoint(element.value);
      continue;
    }
    keep(run || undefined);
    run = '';
    keep(part(element));
  }
  keep(run || undefined);
  return found;
}

/** How much a needle narrows: the length of its shortest string. */
const narrowing = (needle: Needle): number =>
  typeof needle === 'string' ? needle.length : Math.min(...needle.map((n) => n.length));

/** What every match of one of `alternatives` contains: a string of each, or undefined. */
function anyOf(alternatives: readonly AST.Alternative[]): Needle | undefined {
  const each: string[] = [];
  for (const alternative of alternatives) {
    const needle = sequence(alternative.elements);
    if (needle === undefined) return undefined;
    each.push(...(typeof needle === 'string' ? [needle] : needle));
  }
  const distinct = [...new Set(each)];
  return distinct.length === 1 ? distinct[0] : distinct;
}

function part(element: AST.Element): Needle | undefined {
  switch (element.type) {
    case 'Quantifier':
      return element.min === 0 ? undefined : sequence([element.element]);
    case 'Group':
      // A group's own flags (`(?i:…)`) change what its characters match.
      return element.modifiers ? undefined : anyOf(element.alternatives);
    case 'CapturingGroup':
      return anyOf(element.alternatives);
    default:
      return undefined; // classes; assertions take no character; backreferences are refused
  }
}

/**
 * The strings one of which every match of a pattern (parsed with `flags`) contains, or undefined when a
 * gate of them would not pay: case-insensitive, an alternative without a needle, or more than two.
 */
export function needlesOf(pattern: AST.Pattern, flags: string): readonly string[] | undefined {
  if (flags.includes('i')) return undefined;
  const needle = anyOf(pattern.alternatives);
  if (needle === undefined) return undefined;
  if (typeof needle === 'string') return [needle];
  return needle.length > MOST_SEARCHES ? undefined : needle;
}

/** The gate of a pattern's needles (needlesOf), or undefined when it has none. */
export function gateOf(pattern: AST.Pattern, flags: string): Gate | undefined {
  const needles = needlesOf(pattern, flags);
  if (needles === undefined) return undefined;
  const [first, second] = needles as [string, string | undefined];
  if (second === undefined) return (text) => text.includes(first);
  return (text) => text.includes(first) || text.includes(second);
}
