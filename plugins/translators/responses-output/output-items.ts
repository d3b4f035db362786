/**
 * The Response's output items as the API writes them (`ResponseOutputMessage`,
 * `ResponseReasoningItem`, `ResponseFunctionToolCall`), for the JSON answer and the stream alike.
 * An upstream's reasoning (chat's `reasoning_content`, a messages `thinking` block) is the model's own
 * chain of thought, which the API carries as `reasoning_text` content; a reasoning `summary` is a digest
 * the model writes to be shown, and none was written, so `summary` is empty, as the API leaves it when
 * no summary was produced. `encrypted_content` is the sealed reasoning a client sends back to continue
 * from it, written only when the client asked for it (`include`) and the upstream sealed it.
 */
import type { JsonObject } from '../../../core/kit/json';

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

/**
 * The same part as JSON, from its text already as JSON: a stream writes a part's text into three
 * events and the final Response, and serialises it once.
 */
export const partJsonText = (kind: MessagePart['kind'], textJson: string): string =>
  kind === 'output_text'
    ? `{"type":"output_text","annotations":[],"logprobs":[],"text":${textJson}}`
    : `{"type":"refusal","refusal":${textJson}}`;

/** A message item as JSON, from its id and parts already as JSON (as `messageItem` serialises). */
export const messageItemJson = (idJson: string, partsJson: readonly string[], status: ItemStatus): string =>
  `{"id":${idJson},"type":"message","status":"${status}","content":[${partsJson.join(',')}],"role":"assistant"}`;

export const messageItem = (id: string, parts: readonly MessagePart[], status: ItemStatus): JsonObject => ({
  id,
  type: 'message',
  status,
  content: parts.map(partJson),
  role: 'assistant',
});

export const reasoningPart = (text: string): JsonObject => ({ type: 'reasoning_text', text });

/**
 * A reasoning item; `text` undefined while it has no content yet (the stream's first event), `sealed`
 * its `encrypted_content` when it has one.
 */
export const reasoningItem = (id: string, text?: string, sealed?: string): JsonObject => ({
  id,
  type: 'reasoning',
  ...(sealed === undefined ? {} : { encrypted_content: sealed }),
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
