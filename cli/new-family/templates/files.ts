/** What a template makes: one file, by its path from the repository's root, and its text. */
export interface NewFile {
  readonly path: string;
  readonly text: string;
}

/** A JSON fixture as the vendors' API references print them: two-space indent, a final newline. */
export const jsonFile = (path: string, body: unknown): NewFile => ({
  path,
  text: `${JSON.stringify(body, null, 2)}\n`,
});

/** One server-sent event: an optional `event:` line, its data, and the blank line that ends it. */
export const sseEvent = (data: unknown, event?: string): string =>
  `${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** The words every placeholder answer is made of, one token each: they say what the answer is. */
export const PLACEHOLDER_WORDS: readonly string[] = [
  'A',
  ' placeholder',
  ' answer:',
  ' replace',
  ' it',
  ' with',
  ' a',
  ' recording.',
];
export const PLACEHOLDER_TEXT = PLACEHOLDER_WORDS.join('');

/** The placeholder answers' usage: a made-up prompt count, and one output token a word. */
export const PLACEHOLDER_USAGE = { input: 8, output: PLACEHOLDER_WORDS.length } as const;

/** Where a cut or failed placeholder stream stops: after this many of its words. */
export const CUT_AFTER_WORDS = 4;

/** `created` of the placeholder answers and models (2026-01-01, the shipped families' date). */
export const CREATED = 1767225600;
