/**
 * Builds the open form of a parsed pattern: open-match.ts says what it matches and how each kind of
 * part becomes one. Two things here only make it cheaper, not different:
 * - a run of plain characters takes one nested optional chain, `(?:a(?:b(?:c)?)?)?END`, instead of a
 *   branch per character (the regex V8 compiles is several times smaller);
 * - the whole is prefixed with a lookahead for the characters a match can begin with, so V8 skips the
 *   positions where nothing can begin instead of trying every branch at each.
 */
import type { AST } from '@eslint-community/regexpp';
import { regexpp } from './regexpp';

/** The end of the input under any flags (`$` under `m` also matches before a newline). */
const END = '(?![\\s\\S])';

/**
 * The end under `u` or `v`, where a text cut between the halves of a surrogate pair ends in a lone high
 * surrogate that no character of the pattern matches: it may still become any astral character.
 */
const UNICODE_END = `[\\uD800-\\uDBFF]?${END}`;

/** Longest string of a property of strings (`\p{RGI_Emoji}`), in code points, with room to spare (11 today). */
const PROPERTY_STRING_LENGTH = 32;

/** Characters taken together in one optional chain, which nests one group per character. */
const MAX_RUN = 16;

/** Syntax characters written as escapes when a character is put back into a regex. */
const SYNTAX = '^$\\.*+?()[]{}|/';

/**
 * `open`: the whole pattern, where a match ending exactly at the end of the text counts (a stream
 * holds it: more may follow). `reads`: inside a lookaround, where only reading past the end counts.
 */
type Mode = 'open' | 'reads';

type Part = AST.Element;

/** A stretch of a sequence: one part, or a run of characters. */
interface Piece {
  readonly plain: string;
  open(mode: Mode): string;
}

/** The regex atoms the first character of a match is one of (null: not known), and whether it can be empty. */
interface Starts {
  readonly atoms: readonly string[] | null;
  readonly empty: boolean;
}

const UNKNOWN: Starts = { atoms: null, empty: true };

/** The open form of `pattern` (see open-match.ts), for the flags it was parsed with. */
export function openForm(pattern: AST.Pattern, unicode: boolean): string {
  const form = new OpenForm(unicode);
  const body = `(?:${form.alternatives(pattern.alternatives, 'open')})`;
  // Sound because a match is never empty: one held before the end begins with the character there
  // (or, under u or v, with the lone first half of one cut at the end).
  const { atoms, empty } = form.startsOfAlternatives(pattern.alternatives);
  if (atoms === null || empty) return body;
  const first = unicode ? [...atoms, '[\\uD800-\\uDBFF]'] : atoms;
  return `(?=${[...new Set(first)].join('|')})${body}`;
}

/** A `v` class with `\q{}` in it matches the empty string. */
export function hasEmptyString(node: AST.Node): boolean {
  let found = false;
  regexpp().visitRegExpAST(node, {
    onStringAlternativeEnter: (alternative) => (found ||= alternative.elements.length === 0),
  });
  return found;
}

class OpenForm {
  private readonly end: string;

  constructor(private readonly unicode: boolean) {
    this.end = unicode ? UNICODE_END : END;
  }

  alternatives(alternatives: readonly AST.Alternative[], mode: Mode): string {
    return alternatives
      .map((alternative) => this.sequence(this.pieces(alternative.elements), mode))
      .join('|');
  }

  startsOfAlternatives(alternatives: readonly AST.Alternative[]): Starts {
    const each = alternatives.map((alternative) => this.startsOfSequence(alternative.elements));
    if (each.some((starts) => starts.atoms === null)) return UNKNOWN;
    return {
      atoms: each.flatMap((starts) => starts.atoms ?? []),
      empty: each.some((starts) => starts.empty),
    };
  }

  /** E(AB) = E(A) | A E(B), halving the sequence so the nesting stays shallow. */
  private sequence(pieces: readonly Piece[], mode: Mode): string {
    const [first] = pieces;
    if (first === undefined) return this.end;
    if (pieces.length === 1) return first.open(mode);
    const half = pieces.length >> 1;
    const head = pieces.slice(0, half);
    const plainHead = head.map((piece) => piece.plain).join('');
    return `(?:${this.sequence(head, mode)}|${plainHead}${this.sequence(pieces.slice(half), mode)})`;
  }

  private pieces(parts: readonly Part[]): Piece[] {
    const pieces: Piece[] = [];
    let run: string[] = [];
    const endRun = (): void => {
      if (run.length > 0) pieces.push(this.run(run));
      run = [];
    };
    for (const part of parts) {
      if (part.type === 'Character') {
        run.push(this.character(part.value));
        if (run.length === MAX_RUN) endRun();
      } else {
        endRun();
        pieces.push({ plain: this.plain(part), open: (mode) => this.open(part, mode) });
      }
    }
    endRun();
    return pieces;
  }

  /** Characters `abc`: the text ends before them or within them (`reads`), or just after them (`open`). */
  private run(chars: readonly string[]): Piece {
    const chain = (cut: readonly string[]): string =>
      cut.reduceRight((inner, char) => `(?:${char}${inner})?`, '');
    return {
      plain: chars.join(''),
      open: (mode) => `${chain(mode === 'open' ? chars : chars.slice(0, -1))}${this.end}`,
    };
  }

  /** The part as it is, captures made plain so that the copies the open form makes don't clash. */
  private plain(part: Part): string {
    switch (part.type) {
      case 'Character':
        return this.character(part.value);
      case 'CharacterSet':
      case 'CharacterClass':
      case 'ExpressionCharacterClass':
        return part.raw;
      case 'Group':
      case 'CapturingGroup':
        return `(?${modifiers(part)}:${this.plainAlternatives(part.alternatives)})`;
      case 'Quantifier':
        return `(?:${this.plain(part.element)})${part.raw.slice(part.element.raw.length)}`;
      case 'Assertion':
        if (part.kind !== 'lookahead' && part.kind !== 'lookbehind') return part.raw;
        return `(?${part.kind === 'lookbehind' ? '<' : ''}${part.negate ? '!' : '='}${this.plainAlternatives(part.alternatives)})`;
      case 'Backreference':
        throw new Error('backreferences are not supported in guardrail patterns');
    }
  }

  private plainAlternatives(alternatives: readonly AST.Alternative[]): string {
    return alternatives.map((a) => a.elements.map((part) => this.plain(part)).join('')).join('|');
  }

  private open(part: Part, mode: Mode): string {
    switch (part.type) {
      case 'Character':
        return this.run([this.character(part.value)]).open(mode);
      case 'CharacterSet':
      case 'CharacterClass':
      case 'ExpressionCharacterClass':
        return this.oneOf(part, mode);
      case 'Group':
      case 'CapturingGroup':
        return `(?${modifiers(part)}:${this.alternatives(part.alternatives, mode)})`;
      case 'Quantifier':
        return this.repeated(part, mode);
      case 'Assertion':
        return this.assertion(part);
      case 'Backreference':
        throw new Error('backreferences are not supported in guardrail patterns');
    }
  }

  /**
   * `^ $ \b \B` look at most at the character after them: they decide nothing past the end but there,
   * so they hold at the end. A lookahead holds where what it looks for could read past the end; a
   * lookbehind reads only before, unless a lookahead inside looks forward again (then it always holds).
   */
  private assertion(part: AST.Assertion): string {
    if (part.kind === 'lookahead') return `(?=${this.alternatives(part.alternatives, 'reads')})`;
    if (part.kind === 'lookbehind') return looksAhead(part) ? '(?:)' : this.end;
    return this.end;
  }

  /** One character (or, for a `v` class of strings, one of its strings) that the text may end in. */
  private oneOf(
    part: AST.CharacterSet | AST.CharacterClass | AST.ExpressionCharacterClass,
    mode: Mode,
  ): string {
    const longest = longestString(part);
    if (longest > 1) return `[\\s\\S]{0,${mode === 'open' ? longest : longest - 1}}${this.end}`;
    return mode === 'open' ? `${part.raw}?${this.end}` : this.end;
  }

  private repeated(part: AST.Quantifier, mode: Mode): string {
    if (part.max === 0) return this.end;
    const whole = part.max === Infinity ? '*' : part.max === 1 ? '' : `{0,${part.max - 1}}`;
    return `${whole ? `(?:${this.plain(part.element)})${whole}` : ''}${this.open(part.element, mode)}`;
  }

  private startsOfSequence(parts: readonly Part[]): Starts {
    const atoms: string[] = [];
    for (const part of parts) {
      const starts = this.startsOf(part);
      if (starts.atoms === null) return UNKNOWN;
      atoms.push(...starts.atoms);
      if (!starts.empty) return { atoms, empty: false };
    }
    return { atoms, empty: true };
  }

  private startsOf(part: Part): Starts {
    switch (part.type) {
      case 'Character':
        return { atoms: [this.character(part.value)], empty: false };
      case 'CharacterSet':
      case 'CharacterClass':
      case 'ExpressionCharacterClass':
        // A string of a class would have to be whole in the lookahead: the end of a stream may cut it.
        return longestString(part) > 1 || hasEmptyString(part)
          ? UNKNOWN
          : { atoms: [part.raw], empty: false };
      case 'Group':
      case 'CapturingGroup':
        // A group's own flags would not reach atoms taken out of it.
        return modifiers(part) ? UNKNOWN : this.startsOfAlternatives(part.alternatives);
      case 'Quantifier': {
        if (part.max === 0) return { atoms: [], empty: true };
        const starts = this.startsOf(part.element);
        return { atoms: starts.atoms, empty: starts.empty || part.min === 0 };
      }
      case 'Assertion':
        return { atoms: [], empty: true };
      case 'Backreference':
        return UNKNOWN;
    }
  }

  /** A character written so it means itself wherever it lands (an escape for anything not plain ASCII). */
  private character(value: number): string {
    const char = String.fromCodePoint(value);
    if (value >= 0x20 && value < 0x7f && !SYNTAX.includes(char)) return char;
    const hex = value.toString(16).toUpperCase();
    return this.unicode ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
  }
}

/** A group's own flags, `i-m` of `(?i-m:…)`, kept on the copies. */
function modifiers(group: AST.Group | AST.CapturingGroup): string {
  return group.type === 'Group' && group.modifiers ? group.modifiers.raw : '';
}

/** The most characters one match of a class takes: more than 1 only for `v` classes of strings. */
function longestString(node: AST.Node): number {
  let longest = 1;
  regexpp().visitRegExpAST(node, {
    onStringAlternativeEnter: (alternative) => (longest = Math.max(longest, alternative.elements.length)),
    onCharacterSetEnter: (set) => {
      if (set.kind === 'property' && set.strings) longest = Math.max(longest, PROPERTY_STRING_LENGTH);
    },
  });
  return longest;
}

/** Whether a lookbehind holds a lookahead, which may read past the position the lookbehind is at. */
function looksAhead(node: AST.LookbehindAssertion): boolean {
  let found = false;
  regexpp().visitRegExpAST(node, {
    onAssertionEnter: (assertion) => (found ||= assertion.kind === 'lookahead'),
  });
  return found;
}
