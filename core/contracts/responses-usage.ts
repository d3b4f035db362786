/**
 * The gateway's usage in the Responses API's words (`ResponseUsage`): input and output tokens with their
 * details, every member present as the API sends them. The figures are the ones the gateway meters, so
 * the client is shown what it is billed for.
 */
import { numberJson, type JsonObject } from '../base/json';
import type { Usage } from './usage';

export const responsesUsage = (usage: Usage): JsonObject => ({
  input_tokens: usage.promptTokens,
  input_tokens_details: {
    cache_write_tokens: usage.cacheWriteTokens ?? 0,
    cached_tokens: usage.cacheReadTokens ?? 0,
  },
  output_tokens: usage.completionTokens,
  output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  // Input and output, as the API adds them (a vendor's own total may count otherwise).
  total_tokens: usage.promptTokens + usage.completionTokens,
});

/** `JSON.stringify(responsesUsage(usage))` to the byte, written from the figures: every translated stream ends with it. */
export function responsesUsageJson(usage: Usage): string {
  const cacheWrite = numberJson(usage.cacheWriteTokens ?? 0);
  const cached = numberJson(usage.cacheReadTokens ?? 0);
  const reasoning = numberJson(usage.reasoningTokens ?? 0);
  const total = numberJson(usage.promptTokens + usage.completionTokens);
  return (
    `{"input_tokens":${numberJson(usage.promptTokens)},` +
    `"input_tokens_details":{"cache_write_tokens":${cacheWrite},"cached_tokens":${cached}},` +
    `"output_tokens":${numberJson(usage.completionTokens)},` +
    `"output_tokens_details":{"reasoning_tokens":${reasoning}},"total_tokens":${total}}`
  );
}
