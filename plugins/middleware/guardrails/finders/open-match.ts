/**
 * A rule's pattern as the guardrails run it, and its open form: a second regex that matches at a position
 * when the text from there to its end could still grow into a match (or is one reaching the end). A
 * stream holds text from the first such position and releases what comes before.
 *
 * The open form E(X) of each part of the pattern is built from the pattern's syntax tree (open-form.ts):
 * - a character, class or set c: `c?END` (the text ends before it, or just after it);
 * - a sequence AB: `E(A)|A E(B)` (split in halves, so a long sequence nests only log n deep: V8 aborts
 *   the process on alternations nested a few thousand deep);
 * - an alternation: the alternation of the open forms; a group: its contents (captures dropped);
 * - A{n,m}: `(?:A){0,m-1}E(A)`: any number of whole A below the maximum, then an open A (the minimum
 *   does not matter: more text can always add the missing ones);
 * - assertions hold when they look at the end: `^ $ \b \B` become END, a lookahead (?=Y) or (?!Y)
 *   becomes (?=R(Y)), R being the open form of what reads past the end (a whole Y ending just at the
 *   end reads nothing more and decides nothing); a lookbehind reads only before it: END (always true
 *   when a lookahead inside it looks forward again);
 * - a `v` class of strings: any text of at most its longest string's length before the end.
 * Every open form also matches at the end itself, so an empty repetition needs no case of its own.
 * END is `(?![\s\S])`, whatever the flags (under `u` or `v` it also lets a lone high surrogate end the text).
 * The result holds at least what could still match, sometimes a little more, never less.
 *
 * Backreferences are refused (`patternProblem`): what they match depends on what a group took, which
 * this construction cannot follow.
 */
import type { AST } from '@eslint-community/regexpp';
import { regexpp } from './regexpp';
import { hasEmptyString, openForm } from './open-form';
import { type Gate, gateOf } from './needles';

/**
 * Groups nested deeper than this are refused: the open form nests alternations a few times deeper, and
 * V8 aborts the whole process (it does not throw) on alternations nested a few thousand deep.
 */
const MAX_NESTING = 32;

/**
 * Longer patterns are refused: V8 takes ever longer to compile their open form (a list of 1000 words,
 * 11,000 characters, about a second at load; three times that, over ten) and then refuses it as too large.
 */
const MAX_LENGTH = 5000;

/** The flags the gateway compiles a pattern with: its i, m, s, u, v, and g to scan from an index. */
export function scanFlags(flags: string): string {
  return `${[...flags].filter((flag) => 'imsuv'.includes(flag)).join('')}g`;
}

/** Why `source` with `flags` cannot be a rule's pattern, or undefined when it can. */
export function patternProblem(source: string, flags: string): string | undefined {
  if (source.length > MAX_LENGTH) return `the pattern is longer than ${MAX_LENGTH} characters`;
  const tooDeep = `groups nest deeper than ${MAX_NESTING} levels`;
  let pattern: AST.Pattern;
  try {
    compiled('', flags);
    pattern = parse(source, flags);
    if (nesting(pattern) > MAX_NESTING) return tooDeep;
  } catch (err) {
    // The parser and the visitor recurse once per group: a stack overflow is nesting far past the limit.
    return err instanceof RangeError ? tooDeep : reason(err);
  }
  if (hasBackreference(pattern))
    return 'backreferences (\\1, \\k<name>) are not supported in guardrail patterns';
  if (shortest(pattern) === 0) return 'the pattern can match empty text, so it would match everywhere';
  try {
    compiled(source, flags);
  } catch (err) {
    return reason(err);
  }
  try {
    compiled(openSource(source, flags), scanFlags(flags));
    return undefined;
  } catch (err) {
    return `the pattern cannot be followed in a stream: ${reason(err)}`;
  }
}

/**
 * A regex compiled as V8 will run it: on its first use (to bytecode) and again on its second (to machine
 * code). One too large fails only there, so both happen at load rather than on a request.
 */
function compiled(source: string, flags: string): void {
  const regex = new RegExp(source, flags);
  regex.test('');
  regex.test('');
}

/** An error's message without the regex V8 quotes in it (the open form's runs to megabytes). */
function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^Invalid regular expression: \/[\s\S]*\/[a-z]*: /, 'invalid regular expression: ');
}

/** The source of the open form of `source` (flags: `scanFlags(flags)`). Throws on a backreference. */
export function openSource(source: string, flags: string): string {
  const pattern = parse(source, flags);
  if (hasBackreference(pattern)) throw new Error('backreferences are not supported in guardrail patterns');
  return openForm(pattern, flags.includes('u') || flags.includes('v'));
}

/** What a text must contain to hold a match of `source` (needles.ts); undefined when that is not known. */
export function patternGate(source: string, flags: string): Gate | undefined {
  return gateOf(parse(source, flags), flags);
}

function parse(source: string, flags: string): AST.Pattern {
  const mode = { unicode: flags.includes('u'), unicodeSets: flags.includes('v') };
  return new (regexpp().RegExpParser)().parsePattern(source, 0, source.length, mode);
}

function hasBackreference(node: AST.Node): boolean {
  let found = false;
  regexpp().visitRegExpAST(node, { onBackreferenceEnter: () => (found = true) });
  return found;
}

/** How deep groups and lookarounds nest in the pattern. */
function nesting(pattern: AST.Pattern): number {
  let depth = 0;
  let deepest = 0;
  regexpp().visitRegExpAST(pattern, {
    onAlternativeEnter: () => (deepest = Math.max(deepest, ++depth)),
    onAlternativeLeave: () => depth--,
  });
  return deepest - 1;
}

/** The length of the shortest text `node` can match (0 for assertions). */
function shortest(node: AST.Pattern | AST.Alternative | AST.Element): number {
  switch (node.type) {
    case 'Pattern':
    case 'Group':
    case 'CapturingGroup':
      return Math.min(...node.alternatives.map(shortest));
    case 'Alternative':
      return node.elements.reduce((sum, element) => sum + shortest(element), 0);
    case 'Quantifier':
      return node.min === 0 ? 0 : node.min * shortest(node.element);
    case 'CharacterClass':
    case 'ExpressionCharacterClass':
      return hasEmptyString(node) ? 0 : 1;
    case 'Character':
    case 'CharacterSet':
      return 1;
    default:
      return 0;
  }
}
