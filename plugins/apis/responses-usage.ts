/**
 * The Responses API's `usage` (`ResponseUsage`) read as the gateway's Usage, and the text of a request's
 * input for an estimate where a stream ended before its usage came. Reasoning tokens are counted inside
 * `output_tokens` and cached tokens inside `input_tokens`, as the API documents them, which is the
 * gateway's meaning too: nothing is added up.
 */
import { isJsonObject, type JsonObject } from '../../core/kit/json';
import { tokenCount } from '../../core/kit/upstream';
import type { Usage } from '../../core/kit/plugin';
import { usageDetail } from './usage-detail';

/** The vendor's `usage` as Usage; undefined when it is not a usage object (null before the end). */
export function readResponsesUsage(usage: unknown): Usage | undefined {
  if (!isJsonObject(usage) || typeof usage.input_tokens !== 'number') return undefined;
  const reasoning = usageDetail(usage.output_tokens_details, 'reasoning_tokens');
  const cached = usageDetail(usage.input_tokens_details, 'cached_tokens');
  return {
    promptTokens: tokenCount(usage.input_tokens),
    completionTokens: tokenCount(usage.output_tokens),
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
    ...(cached !== undefined ? { cacheReadTokens: cached } : {}),
    ...(typeof usage.total_tokens === 'number' ? { totalTokens: tokenCount(usage.total_tokens) } : {}),
    estimated: false,
  };
}

/** Characters of text in one input item: a message's text parts, a call's arguments, a tool's output. */
function itemChars(item: unknown): number {
  if (!isJsonObject(item)) return 0;
  const content = item.content ?? item.output;
  if (typeof content === 'string') return content.length;
  let chars = typeof item.arguments === 'string' ? item.arguments.length : 0;
  if (Array.isArray(content)) {
    for (const part of content)
      if (isJsonObject(part) && typeof part.text === 'string') chars += part.text.length;
  }
  return chars;
}

/** Characters of text in a list of items (a request's `input`, a Response's `output`). */
export const itemsChars = (items: unknown): number =>
  Array.isArray(items) ? items.reduce<number>((n, item) => n + itemChars(item), 0) : 0;

/** Characters of the request's instructions and input, for an estimate of its input tokens. */
export function responsesInputChars(body: JsonObject): number {
  const instructions = typeof body.instructions === 'string' ? body.instructions.length : 0;
  const input = body.input;
  return instructions + (typeof input === 'string' ? input.length : itemsChars(input));
}
