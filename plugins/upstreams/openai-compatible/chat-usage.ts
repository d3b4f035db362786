/** Reading OpenAI-shaped `usage` objects (`prompt_tokens`, `completion_tokens`, cached prompt tokens). */
import type { JsonObject } from '../../../core/context';
import { tokenCount, type Usage } from '../../../core/usage';

export function readChatUsage(usage: unknown): Usage | undefined {
  if (usage === null || typeof usage !== 'object') return undefined;
  const u = usage as JsonObject;
  const details = u.prompt_tokens_details as JsonObject | null | undefined;
  const cached = details?.cached_tokens;
  return {
    promptTokens: tokenCount(u.prompt_tokens),
    completionTokens: tokenCount(u.completion_tokens),
    ...(typeof cached === 'number' && cached > 0 ? { cacheReadTokens: cached } : {}),
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
