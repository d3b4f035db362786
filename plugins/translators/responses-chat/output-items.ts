/**
 * The Response's output items as the API writes them (`ResponseOutputMessage`,
 * `ResponseReasoningItem`, `ResponseFunctionToolCall`), for the JSON answer and the stream alike.
 * A chat vendor's `reasoning_content` is its raw chain of thought, which the API carries as
 * `reasoning_text` content; a reasoning `summary` is a digest the model writes to be shown, and none was
 * written, so `summary` is empty, as the API leaves it when no summary was produced.
 */
import type { JsonObject } from '../../../core/kit';

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

/** A part of an assistant message: text, or a refusal (chat's `refusal`). */
export interface MessagePart {
  readonly kind: 'output_text' | 'refusal';
  text: string;
}

export const partJson = (part: MessagePart): JsonObject =>
  part.kind === 'output_text'
    ? { type: 'output_text', annotations: [], logprobs: [], text: part.text }
    : { type: 'refusal', refusal: part.text };

export const messageItem = (id: string, parts: readonly MessagePart[], status: ItemStatus): JsonObject => ({
  id,
  type: 'message',
  status,
  content: parts.map(partJson),
  role: 'assistant',
});

export const reasoningPart = (text: string): JsonObject => ({ type: 'reasoning_text', text });

/** A reasoning item; `text` undefined while it has no content yet (the stream's first event). */
export const reasoningItem = (id: string, text?: string): JsonObject => ({
  id,
  type: 'reasoning',
  summary: [],
  ...(text === undefined ? {} : { content: [reasoningPart(text)] }),
});

export interface FunctionCall {
  readonly callId: string;
  name: string;
  args: string;
}

export const functionCallItem = (id: string, call: FunctionCall, status: ItemStatus): JsonObject => ({
  id,
  type: 'function_call',
  status,
  arguments: call.args,
  call_id: call.callId,
  name: call.name,
});
