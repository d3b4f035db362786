/**
 * The prompt-token heuristic every family's usage counts rest on: about four characters a token. Apart
 * from the reply text (reply-text.ts), so the prompt cache counts alike without importing what an
 * exchange is.
 */
export const CHARS_PER_TOKEN = 4;

/** Tokens that `chars` characters of prompt count as. */
export const tokensOf = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);
