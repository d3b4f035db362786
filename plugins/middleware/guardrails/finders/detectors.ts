/**
 * The PII detectors a rule names in `pii: [...]`. Each is a candidate regex that finds what has the shape
 * of one, and a check that a candidate is one (a card number's Luhn digit, an IBAN's checksum). A stream
 * holds text by the candidate's open form alone: the check can only refuse a whole candidate.
 *
 * Candidates start at word edges (the lookbehinds), so a scan only tries the start of a run of characters
 * (which keeps it linear), and do not end inside a word or number (the lookaheads): digits running on
 * into more digits are not taken apart.
 *
 * validator and libphonenumber-js are loaded on the first check, not here: a gateway whose rules name no
 * detector never loads them.
 */
import type IsCreditCard from 'validator/lib/isCreditCard';
import type IsEmail from 'validator/lib/isEmail';
import type IsIBAN from 'validator/lib/isIBAN';
import type IsIP from 'validator/lib/isIP';
import type * as Phone from 'libphonenumber-js/max';
import type { Matcher } from './matcher';
import { patternMatcher } from './pattern-matcher';

export type DetectorName = 'email' | 'phone' | 'credit_card' | 'iban' | 'ip_address' | 'secret';

export interface Detector {
  readonly name: DetectorName;
  /** What replaces a match when the rule masks. */
  readonly placeholder: string;
  /** A regex source (no flags) for text shaped like one. */
  readonly candidate: string;
  /** Whether a candidate really is one; without it every candidate is. */
  readonly valid?: (candidate: string) => boolean;
}

/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use (see the file's comment) */
// validator's modules export their function as `default` (isIBAN only there).
const load = {
  isEmail: once(() => (require('validator/lib/isEmail') as { default: typeof IsEmail }).default),
  isCreditCard: once(
    () => (require('validator/lib/isCreditCard') as { default: typeof IsCreditCard }).default,
  ),
  isIBAN: once(() => (require('validator/lib/isIBAN') as { default: typeof IsIBAN }).default),
  isIP: once(() => (require('validator/lib/isIP') as { default: typeof IsIP }).default),
  // The max metadata checks a number's digits against its country's plan, not only its length.
  phone: once(() => require('libphonenumber-js/max') as typeof Phone),
};
/* eslint-enable @typescript-eslint/no-require-imports */

const IPV4 = String.raw`(?:\d{1,3}\.){3}\d{1,3}`;
const IPV6 = String.raw`(?:[0-9A-Fa-f]{1,4}:|:){2,7}(?:[0-9A-Fa-f]{1,4}|${IPV4})?`;

/** Private-key PEM blocks, through their END line or the end of the text (a key cut off is still one). */
const PEM_LABEL = String.raw`(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`;
const PEM = String.raw`-----BEGIN ${PEM_LABEL}[A-Za-z0-9+/=:,\s-]*?(?:-----END ${PEM_LABEL}|(?![\s\S]))`;

/** The detectors by name. */
export const DETECTORS: Readonly<Record<DetectorName, Detector>> = Object.freeze({
  email: {
    name: 'email',
    placeholder: '[EMAIL]',
    candidate: String.raw`(?<![\w.%+-])[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}(?![\w-])`,
    valid: (candidate) => load.isEmail()(candidate),
  },
  // International numbers only, `+` and country code first: without a default country a national
  // number (`(415) 555-2671`) cannot be checked, and would be any run of digits.
  phone: {
    name: 'phone',
    placeholder: '[PHONE]',
    candidate: String.raw`(?<![\w+])\+[1-9](?:[ .-]?(?:\d|\(\d{1,4}\))){6,14}(?!\d)`,
    valid: (candidate) => load.phone().isValidPhoneNumber(candidate),
  },
  credit_card: {
    name: 'credit_card',
    placeholder: '[CARD]',
    candidate: String.raw`(?<![\w-])\d(?:[ -]?\d){12,18}(?!\w)`,
    // An issuer's prefix and length, and the Luhn check digit.
    valid: (candidate) => load.isCreditCard()(candidate.replace(/[ -]/g, '')),
  },
  iban: {
    name: 'iban',
    placeholder: '[IBAN]',
    candidate: String.raw`(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?![A-Za-z0-9])`,
    // The country's length and format, and the mod-97 checksum; spaces are ignored.
    valid: (candidate) => load.isIBAN()(candidate),
  },
  ip_address: {
    name: 'ip_address',
    placeholder: '[IP]',
    candidate: String.raw`(?<![\w:.])(?:${IPV6}(?![\w:]|\.\w)|${IPV4}(?!\w|\.\w))`,
    // `::` alone is an address too, but in text it is punctuation (`a :: b`): one digit at least.
    valid: (candidate) => load.isIP()(candidate) && /[0-9A-Fa-f]/.test(candidate),
  },
  secret: {
    name: 'secret',
    placeholder: '[SECRET]',
    candidate: [
      String.raw`(?<![\w-])sk-[A-Za-z0-9_-]{20,}`, // OpenAI and Anthropic keys: sk-…, sk-proj-…, sk-ant-…
      String.raw`(?<![A-Za-z0-9])AKIA[0-9A-Z]{16}(?![A-Za-z0-9])`, // AWS access key ids
      String.raw`(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})`, // GitHub
      // Authorization: Bearer <token>, not taking the full stop of a sentence it ends.
      String.raw`(?<!\w)[Bb]earer [A-Za-z0-9\-._~+/]{15,}[A-Za-z0-9\-_~+/]=*`,
      PEM,
    ].join('|'),
    valid: (candidate) => !/^bearer /i.test(candidate) || tokenLike(candidate.slice('bearer '.length)),
  },
});

/**
 * A bearer token, not a word after "bearer" ("bearer responsibilities."): a digit, or a capital past the
 * first letter. A random token of 16 characters or more lacks both a few times in a million.
 */
function tokenLike(token: string): boolean {
  return /\d/.test(token) || /[A-Z]/.test(token.slice(1));
}

const matchers = new Map<DetectorName, Matcher>();

/** The Matcher of a detector, built once and shared (a Matcher keeps no state between calls). */
export function detectorMatcher(name: DetectorName): Matcher {
  let matcher = matchers.get(name);
  if (matcher === undefined) {
    const { candidate, placeholder, valid } = DETECTORS[name];
    matcher = patternMatcher(candidate, '', placeholder, valid);
    matchers.set(name, matcher);
  }
  return matcher;
}

function once<T>(load: () => T): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load());
}
