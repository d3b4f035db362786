/**
 * A whole chat completion as a Response: its first choice's reasoning, text (or refusal) and tool calls
 * become output items in that order (the order a reasoning model produces them and OpenAI lists them),
 * the finish reason the status, and the usage the gateway metered the Response's usage.
 */
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import type { Usage } from '../../../core/kit/plugin';
import { responseOfDrafts, type Draft } from '../responses-output/json-response';
import {
  functionCallItem,
  type FunctionCall,
  messageItem,
  type MessagePart,
  reasoningItem,
} from '../responses-output/output-items';
import type { ResponseEcho } from '../responses-output/response-object';
import { finishOf } from './finish';

/** Chat completions' id prefix, which the Response's ids do not repeat. */
export const CHAT_ID_PREFIX = /^chatcmpl-/;

/** Text of a chat message's `content`: a string, or the text of its parts (a few vendors send parts). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isJsonObject(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

/** A tool call's arguments as the JSON text the API carries (a few vendors send an object). */
export const argumentsText = (args: unknown): string =>
  typeof args === 'string' ? args : args == null ? '' : JSON.stringify(args);

function messageParts(message: JsonObject, hasCalls: boolean): MessagePart[] {
  const parts: MessagePart[] = [];
  const text = textOf(message.content);
  if (text !== '') parts.push({ kind: 'output_text', text });
  if (typeof message.refusal === 'string' && message.refusal !== '') {
    parts.push({ kind: 'refusal', text: message.refusal });
  }
  // An answer that is neither text nor a call is still a message, with empty text, as the API writes one.
  if (parts.length === 0 && !hasCalls) parts.push({ kind: 'output_text', text: '' });
  return parts;
}

function callOf(call: JsonObject, i: number): FunctionCall {
  const fn = isJsonObject(call.function) ? call.function : {};
  return {
    callId: typeof call.id === 'string' && call.id !== '' ? call.id : `call_${i}`,
    name: typeof fn.name === 'string' ? fn.name : '',
    args: argumentsText(fn.arguments),
  };
}

function drafts(message: JsonObject): Draft[] {
  const out: Draft[] = [];
  const reasoning = message.reasoning_content;
  if (typeof reasoning === 'string' && reasoning !== '') {
    out.push({ kind: 'reasoning', build: (id) => reasoningItem(id, reasoning) });
  }
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isJsonObject) : [];
  const parts = messageParts(message, calls.length > 0);
  if (parts.length > 0) out.push({ kind: 'message', build: (id, status) => messageItem(id, parts, status) });
  calls.forEach((call, i) => {
    const fc = callOf(call, i);
    out.push({ kind: 'function_call', build: (id, status) => functionCallItem(id, fc, status) });
  });
  return out;
}

/**
 * The Response for a chat completion whose usage the gateway metered as `usage`. When the answer was cut
 * short, its last item is the one left `incomplete`.
 */
export function responseFromCompletion(completion: JsonObject, usage: Usage, echo: ResponseEcho): JsonObject {
  const choice = Array.isArray(completion.choices) ? completion.choices.find(isJsonObject) : undefined;
  const message = isJsonObject(choice?.message) ? choice.message : {};
  const head = { id: completion.id, idPrefix: CHAT_ID_PREFIX, created: completion.created };
  return responseOfDrafts(head, drafts(message), finishOf(choice?.finish_reason), usage, echo);
}
