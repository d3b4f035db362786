/**
 * Where a stream's earliest possible match begins, for a whole rule set: the finders' open forms as one
 * alternation per set of flags, so a piece of a stream takes a scan or two rather than one per finder
 * (a PII rule alone has six). Finding matches stays per finder: an alternation of the sources scanned a
 * text that matches nothing more slowly than the separate regexes, which V8 can search by their literals.
 */
import type { Matcher, MatcherForm } from './matcher';
import { insidePair } from './pattern-matcher';
import type { Rule } from '../rules';

interface Combined {
  readonly open: RegExp;
  readonly unicode: boolean;
}

export interface Scanner {
  /** The earliest `openFrom` of every finder (Matcher.openFrom). */
  openFrom(text: string, from: number): number;
}

const alternation = (sources: readonly string[]): string => sources.map((s) => `(?:${s})`).join('|');

/** One regex for finders sharing flags; undefined when their open forms do not compile together. */
function combine(forms: readonly MatcherForm[]): Combined | undefined {
  const { flags } = forms[0]!;
  try {
    return {
      open: new RegExp(alternation(forms.map((f) => f.open)), flags),
      unicode: /[uv]/.test(flags),
    };
  } catch {
    return undefined; // e.g. two patterns naming a group alike
  }
}

function earliestOpen({ open, unicode }: Combined, text: string, from: number): number {
  open.lastIndex = from;
  for (let match = open.exec(text); match !== null; match = open.exec(text)) {
    if (!unicode || !insidePair(text, match.index)) return match.index;
    open.lastIndex = match.index + 1;
  }
  return text.length;
}

function build(rules: readonly Rule[]): Scanner {
  const byFlags = new Map<string, MatcherForm[]>();
  const alone: Matcher[] = [];
  const combined: Combined[] = [];
  for (const m of rules.flatMap((rule) => rule.matchers)) {
    if (m.form) byFlags.set(m.form.flags, [...(byFlags.get(m.form.flags) ?? []), m.form]);
    else alone.push(m);
  }
  for (const forms of byFlags.values()) {
    const one = combine(forms);
    if (one) combined.push(one);
    else for (const form of forms) combined.push(combine([form])!);
  }
  return {
    openFrom(text, from) {
      let open = text.length;
      for (const one of combined) open = Math.min(open, earliestOpen(one, text, from));
      for (const m of alone) open = Math.min(open, m.openFrom(text, from));
      return open;
    },
  };
}

/** Built once per rule set: a call's rules are the configuration's, in a few combinations. */
const built = new WeakMap<Rule, Map<string, Scanner>>();

export function scannerFor(rules: readonly Rule[]): Scanner {
  const first = rules[0];
  if (first === undefined) return build(rules);
  let sets = built.get(first);
  if (!sets) built.set(first, (sets = new Map<string, Scanner>()));
  const key = rules.map((r) => r.name).join('\0');
  let scanner = sets.get(key);
  if (!scanner) sets.set(key, (scanner = build(rules)));
  return scanner;
}
