/**
 * A Matcher from a regex: the pattern itself finds matches, its open form (open-match.ts) finds where a
 * stream must start holding text. Both are compiled once; each call sets `lastIndex` before it scans. A
 * text without what every match contains (needles.ts) is not scanned.
 */
import type { Found, Matcher } from './matcher';
import { openSource, patternGate, scanFlags } from './open-match';

const NONE: readonly Found[] = Object.freeze([]);

/**
 * The matcher of a rule's `pattern` (checked by `patternProblem` first). `accept`, when given, is a
 * detector's check of a candidate: one it refuses is not a match, and the scan goes on from the next
 * character, so a shorter candidate starting inside it may still be found.
 */
export function patternMatcher(
  source: string,
  flags: string,
  placeholder: string,
  accept?: (candidate: string) => boolean,
): Matcher {
  const form = { source, open: openSource(source, flags), flags: scanFlags(flags) };
  const whole = new RegExp(source, form.flags);
  const open = new RegExp(form.open, form.flags);
  const unicode = /[uv]/.test(whole.flags);
  const gate = patternGate(source, flags);
  return {
    placeholder,
    form,
    find(text: string, from: number): readonly Found[] {
      if (gate !== undefined && !gate(text)) return NONE;
      const found: Found[] = [];
      whole.lastIndex = from;
      for (let match = whole.exec(text); match !== null; match = whole.exec(text)) {
        const start = match.index;
        const end = start + match[0].length;
        // exec left lastIndex at `end`: the next match starts there, so matches never overlap.
        if (end > start && (accept === undefined || accept(match[0]))) found.push({ start, end });
        else whole.lastIndex = start + step(text, start, unicode);
      }
      return found;
    },
    openFrom(text: string, from: number): number {
      open.lastIndex = from;
      for (let match = open.exec(text); match !== null; match = open.exec(text)) {
        // Under u or v V8 also tries the middle of a surrogate pair, where the open form's end
        // assertion alone can match (no character can): no match begins there.
        if (!unicode || !insidePair(text, match.index)) return match.index;
        open.lastIndex = match.index + 1;
      }
      return text.length;
    },
  };
}

/** Whether `at` falls between the two halves of a surrogate pair. */
export function insidePair(text: string, at: number): boolean {
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}

/** One character on: a whole surrogate pair where the regex reads code points. */
function step(text: string, at: number, unicode: boolean): number {
  return unicode && (text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
}
