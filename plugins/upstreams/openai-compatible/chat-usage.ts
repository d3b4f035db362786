/**
 * Reading OpenAI-shaped `usage` objects: prompt and completion tokens, cached prompt tokens, reasoning
 * tokens and the vendor's total.
 */
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import { tokenCount } from '../../../core/kit/upstream';
import type { Usage } from '../../../core/kit/plugin';
import { usageDetail } from '../../apis/usage-detail';

/**
 * OpenAI and DashScope count reasoning inside `completion_tokens`. Gemini's compatible endpoint leaves its
 * thinking out of `completion_tokens` but counts it in `total_tokens`, and bills it as output: whatever
 * the total holds beyond prompt and completion is output the vendor bills, so it is added to completion
 * (and is the reasoning count, where the vendor gives no `reasoning_tokens`).
 */
export function readChatUsage(usage: unknown): Usage | undefined {
  if (!isJsonObject(usage)) return undefined;
  const u: JsonObject = usage;
  const prompt = tokenCount(u.prompt_tokens);
  const completion = tokenCount(u.completion_tokens);
  const total = typeof u.total_tokens === 'number' ? tokenCount(u.total_tokens) : undefined;
  const unaccounted = total === undefined ? 0 : Math.max(0, total - prompt - completion);
  const reasoning =
    usageDetail(u.completion_tokens_details, 'reasoning_tokens') ??
    (unaccounted > 0 ? unaccounted : undefined);
  const cached = usageDetail(u.prompt_tokens_details, 'cached_tokens');
  return {
    promptTokens: prompt,
    completionTokens: completion + unaccounted,
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
    ...(cached !== undefined ? { cacheReadTokens: cached } : {}),
    ...(total !== undefined ? { totalTokens: total } : {}),
    estimated: false,
  };
}

/** Characters of generated text in a message or a stream delta: content, reasoning and tool arguments. */
export function generatedChars(part: unknown): number {
  if (part === null || typeof part !== 'object') return 0;
  const p = part as JsonObject;
  let chars = 0;
  if (typeof p.content === 'string') chars += p.content.length;
  if (typeof p.reasoning_content === 'string') chars += p.reasoning_content.length;
  if (Array.isArray(p.tool_calls)) {
    for (const call of p.tool_calls as JsonObject[]) {
      const args = (call.function as JsonObject | undefined)?.arguments;
      if (typeof args === 'string') chars += args.length;
    }
  }
  return chars;
}
