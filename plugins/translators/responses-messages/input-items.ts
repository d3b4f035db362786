/**
 * The conversation a Responses request carries (`instructions` and `input`) as a messages request's
 * `system` and `messages`. One rule per input item type: user and assistant messages are turns of their
 * role, system and developer messages join the top-level `system` (messages has no such role), function
 * calls are an assistant's `tool_use` blocks, their outputs a user's `tool_result` blocks.
 *
 * A reasoning item a client sends back (Codex, with `store: false`) is the model's thinking: messages
 * wants it back, as a `thinking` block with the signature that sealed it, before the tool calls of the
 * same turn. Its seal is the item's `encrypted_content` (reader: the thinking block's signature); a
 * reasoning item without one was not written by a messages model, has nothing messages can verify, and
 * is left out, as the chat translator leaves every reasoning item out. Any other item type (a stored
 * item's reference, a built-in tool's call) has no messages counterpart and is refused, naming it.
 */
import { Errors } from '../../../core/kit/plugin';
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import { itemType } from '../../apis/responses';
import { blocksOf, PARTS_OF_ROLE, toolResultContent } from './content-blocks';
import { type TurnRole, Turns } from './turns';

/** Responses roles → where their content goes: a turn, or the system text. */
const ROLES: Readonly<Record<string, TurnRole | 'system'>> = {
  user: 'user',
  assistant: 'assistant',
  system: 'system',
  developer: 'system',
};

type ItemRule = (item: JsonObject, at: string, turns: Turns) => void;

const message: ItemRule = (item, at, turns) => {
  const role = ROLES[String(item.role)]!;
  const content = item.content as string | JsonObject[];
  const blocks = blocksOf(content, PARTS_OF_ROLE[role]!, `${at}.content`, turns.model);
  if (role === 'system') turns.system.push(blocks.map((b) => String(b.text)).join('\n'));
  else turns.add(role, blocks);
};

/** A call's arguments, the JSON text of an object, as the `input` object messages carries. */
function inputOf(args: string, at: string): JsonObject {
  let input: unknown;
  try {
    input = JSON.parse(args === '' ? '{}' : args);
  } catch {
    input = undefined;
  }
  if (!isJsonObject(input)) throw Errors.invalidRequest(`field '${at}.arguments' must be a JSON object`);
  return input;
}

const functionCall: ItemRule = (item, at, turns) => {
  // Namespaced functions are the Responses API's own (tool search); a messages tool is a flat name.
  if (item.namespace != null) throw Errors.unsupportedField(`${at}.namespace`, turns.model);
  turns.add('assistant', [
    { type: 'tool_use', id: item.call_id, name: item.name, input: inputOf(String(item.arguments), at) },
  ]);
};

const functionCallOutput: ItemRule = (item, at, turns) => {
  const output = item.output as string | JsonObject[];
  turns.add('user', [
    {
      type: 'tool_result',
      tool_use_id: item.call_id,
      content: toolResultContent(output, `${at}.output`, turns.model),
    },
  ]);
};

/** The text of a reasoning item's parts (its `reasoning_text` content, else its summary). */
const partsText = (parts: unknown): string =>
  Array.isArray(parts)
    ? parts.map((p) => (isJsonObject(p) && typeof p.text === 'string' ? p.text : '')).join('')
    : '';

const reasoning: ItemRule = (item, _at, turns) => {
  const signature = item.encrypted_content;
  if (typeof signature !== 'string' || signature === '') return;
  const thinking = partsText(item.content) || partsText(item.summary);
  turns.add('assistant', [{ type: 'thinking', thinking, signature }]);
};

const ITEM_RULES: Readonly<Record<string, ItemRule>> = {
  message,
  function_call: functionCall,
  function_call_output: functionCallOutput,
  reasoning,
};

function addItem(item: JsonObject, at: string, turns: Turns): void {
  const type = String(itemType(item));
  const rule = Object.hasOwn(ITEM_RULES, type) ? ITEM_RULES[type] : undefined;
  if (!rule) throw Errors.unsupportedField(at, turns.model, `of type '${type}'`);
  rule(item, at, turns);
}

/**
 * The messages `system` and `messages` for a validated Responses body: the instructions first in the
 * system text, then the input's system and developer messages.
 */
export function messagesConversation(body: JsonObject, model: string): JsonObject {
  const turns = new Turns(model);
  if (typeof body.instructions === 'string') turns.system.push(body.instructions);
  const { input } = body;
  if (typeof input === 'string') turns.add('user', [{ type: 'text', text: input }]);
  else (input as JsonObject[]).forEach((item, i) => addItem(item, `input[${i}]`, turns));
  if (turns.messages.length === 0) {
    throw Errors.invalidRequest("field 'input' holds nothing a messages model can read");
  }
  return {
    ...(turns.system.length > 0 && { system: turns.system.join('\n\n') }),
    messages: turns.messages,
  };
}
