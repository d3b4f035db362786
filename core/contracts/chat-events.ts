/**
 * The chat completions API's stream events, as a reader whose vendor speaks another API writes them for
 * its client: a chunk, the usage chunk `stream_options.include_usage` asks for, the `[DONE]` that ends a
 * whole answer, and an error in the contract's shape. Stated once here, so that every translating family
 * writes the same events its clients' SDKs read.
 */
import type { JsonObject } from '../base/json';
import { JsonEvent, type SseEvent } from '../base/sse';
import type { Usage } from './usage';

/** What every chunk of one answer repeats: its id, one `created` (Unix seconds), the model the client named. */
export interface ChatAnswerHead {
  readonly id: string;
  readonly created: number;
  readonly model: string;
}

/** Usage in the chat API's names, with the details OpenAI reports where the vendor gave them. */
export function chatUsage(usage: Usage): JsonObject {
  const { promptTokens, completionTokens, reasoningTokens, cacheReadTokens } = usage;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    ...(cacheReadTokens !== undefined ? { prompt_tokens_details: { cached_tokens: cacheReadTokens } } : {}),
    ...(reasoningTokens !== undefined
      ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } }
      : {}),
  };
}

const dataEvent = (payload: JsonObject): SseEvent => new JsonEvent(undefined, JSON.stringify(payload));

/** A `chat.completion.chunk`, its members in OpenAI's order. */
const chunkEvent = (head: ChatAnswerHead, choices: JsonObject[], extra: JsonObject = {}): SseEvent =>
  dataEvent({
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices,
    ...extra,
  });

/**
 * A chunk of the answer's one choice: `delta` holds what it adds (the first names the role,
 * `{role: 'assistant', content: ''}`); `finishReason`, in the chat API's words, once the choice ends.
 */
export const chatChunk = (
  head: ChatAnswerHead,
  delta: JsonObject,
  finishReason: string | null = null,
): SseEvent => chunkEvent(head, [{ index: 0, delta, finish_reason: finishReason }]);

/** The chunk `stream_options.include_usage` asks for, after the finish and before `[DONE]`: no choices. */
export const chatUsageChunk = (head: ChatAnswerHead, usage: Usage): SseEvent =>
  chunkEvent(head, [], { usage: chatUsage(usage) });

/** The end of a whole answer's stream; a failed one ends with `chatErrorEvent` instead, and no marker. */
export const CHAT_DONE: SseEvent = Object.freeze({ data: '[DONE]' });

/**
 * An error inside the stream, in the contract's shape `{"error": {code, message, type: "error"}}`: a data
 * chunk with an `error` member, which OpenAI's SDKs raise.
 */
export const chatErrorEvent = (code: string, message: string): SseEvent =>
  dataEvent({ error: { code, message, type: 'error' } });
