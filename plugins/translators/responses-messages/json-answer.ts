/**
 * A whole message as a Response: its content blocks become output items in order, a `thinking` block a
 * reasoning item (its signature the item's `encrypted_content` when the client asked for it), a run of
 * `text` blocks one message, a `tool_use` block a function call whose `call_id` is the block's id and
 * whose `arguments` are its input as JSON. The stop reason is the status, and the usage the gateway
 * metered the Response's usage. A `redacted_thinking` block is thinking the vendor sealed whole: it has
 * no text to show and no place in a reasoning item that would bring it back, so it is not shown.
 */
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import type { Usage } from '../../../core/kit/plugin';
import { responseOfDrafts, type Draft } from '../responses-output/json-response';
import {
  functionCallItem,
  messageItem,
  type MessagePart,
  reasoningItem,
} from '../responses-output/output-items';
import type { ResponseEcho } from '../responses-output/response-object';
import { finishOf, MESSAGE_ID_PREFIX } from './finish';

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The drafts read so far, and the text parts of the message being read. */
interface Reading {
  readonly drafts: Draft[];
  /** Whether to write the thinking's signature (`include: ['reasoning.encrypted_content']`). */
  readonly sealed: boolean;
  parts: MessagePart[] | undefined;
}

type BlockRule = (block: JsonObject, reading: Reading) => void;

const BLOCKS: Readonly<Record<string, BlockRule>> = {
  thinking: (block, reading) => {
    reading.parts = undefined;
    const sealed = reading.sealed && str(block.signature) !== '' ? str(block.signature) : undefined;
    reading.drafts.push({ kind: 'reasoning', build: (id) => reasoningItem(id, str(block.thinking), sealed) });
  },
  text: (block, reading) => {
    if (!reading.parts) {
      const parts: MessagePart[] = [];
      reading.parts = parts;
      reading.drafts.push({ kind: 'message', build: (id, status) => messageItem(id, parts, status) });
    }
    reading.parts.push({ kind: 'output_text', text: str(block.text) });
  },
  tool_use: (block, reading) => {
    reading.parts = undefined;
    const call = { callId: str(block.id), name: str(block.name), args: JSON.stringify(block.input ?? {}) };
    reading.drafts.push({ kind: 'function_call', build: (id, status) => functionCallItem(id, call, status) });
  },
};

function drafts(content: unknown, sealed: boolean): Draft[] {
  const reading: Reading = { drafts: [], sealed, parts: undefined };
  const blocks = Array.isArray(content) ? content.filter(isJsonObject) : [];
  for (const block of blocks) {
    const type = String(block.type);
    if (Object.hasOwn(BLOCKS, type)) BLOCKS[type]!(block, reading);
  }
  // An answer that is neither text nor a call is still a message, with empty text, as the API writes one.
  if (!reading.drafts.some((d) => d.kind !== 'reasoning')) BLOCKS.text!({ text: '' }, reading);
  return reading.drafts;
}

/**
 * The Response for a message whose usage the gateway metered as `usage`; `sealed`: whether the client
 * asked for the thinking's signature.
 */
export function responseFromMessage(
  message: JsonObject,
  usage: Usage,
  echo: ResponseEcho,
  sealed: boolean,
): JsonObject {
  const head = { id: message.id, idPrefix: MESSAGE_ID_PREFIX };
  return responseOfDrafts(head, drafts(message.content, sealed), finishOf(message.stop_reason), usage, echo);
}
