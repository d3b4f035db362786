/**
 * The embeddings API's `input` in its four forms (a string, an array of strings, an array of tokens, an
 * array of token arrays) read as a list of inputs: how many a call sends, and how many tokens the
 * upstream will count, exactly for token arrays and estimated for text.
 */
import { estimateTokens } from '../../core/kit/upstream';

/** One input as the upstream embeds it: text, or the tokens of a text. */
type OneInput = string | readonly number[];

const isTokens = (value: unknown): value is readonly number[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'number');

/**
 * The inputs one call sends: a string or a token array is one input, an array of either one per entry.
 * Anything else (the validator has refused it already) is none.
 */
export function inputsOf(input: unknown): readonly OneInput[] {
  if (typeof input === 'string' || isTokens(input)) return [input];
  if (!Array.isArray(input)) return [];
  return input.filter((one): one is OneInput => typeof one === 'string' || isTokens(one));
}

/** The token arrays among the inputs, which the gateway can count exactly. */
export const tokenArraysOf = (input: unknown): readonly (readonly number[])[] =>
  inputsOf(input).filter((one): one is readonly number[] => typeof one !== 'string');

/**
 * Tokens the upstream counts for `input`, for a call whose answer carries no usage: a token array counts
 * its length, text about four characters a token (the gateway holds no vendor's tokenizer).
 */
export function inputTokens(input: unknown): number {
  let tokens = 0;
  for (const one of inputsOf(input))
    tokens += typeof one === 'string' ? estimateTokens(one.length) : one.length;
  return tokens;
}
