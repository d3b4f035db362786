/**
 * regexpp, loaded on first use: it reads patterns, so a gateway whose configuration has no pattern rule
 * (or no guardrails stage at all: discovery loads every plugin's modules) never holds it in its heap.
 */
import type * as Regexpp from '@eslint-community/regexpp';

let loaded: typeof Regexpp | undefined;

export const regexpp = (): typeof Regexpp =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (above)
  (loaded ??= require('@eslint-community/regexpp') as typeof Regexpp);
