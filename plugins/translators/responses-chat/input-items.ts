/**
 * The conversation a Responses request carries (`instructions` and `input`) as chat completions'
 * `messages`. One rule per input item type: messages keep their role (a developer message is chat's
 * system message), function calls become an assistant's `tool_calls`, their outputs `tool` messages.
 * Function calls that follow each other, or an assistant message, join that assistant message: chat
 * wants an assistant's parallel calls in one message, answered by the tool messages after it.
 *
 * Reasoning items a client sends back (`input.push(...response.output)`) are left out: chat has no
 * member to carry a previous turn's reasoning, and the vendors that return `reasoning_content` say not
 * to send it back. Any other item type (a stored item's reference, a built-in tool's call) has no chat
 * counterpart and is refused, naming it.
 */
import { Errors } from '../../../core/kit/plugin';
import type { JsonObject } from '../../../core/kit/json';
import { itemType } from '../../apis/responses';
import { assistantContent, chatContent, chatToolContent } from './input-parts';

/** Responses roles → chat's (validateChatRequest takes system, user, assistant and tool). */
const CHAT_ROLES: Readonly<Record<string, string>> = {
  user: 'user',
  assistant: 'assistant',
  system: 'system',
  developer: 'system',
};

/** The chat messages built so far, for one request. */
class Conversation {
  readonly messages: JsonObject[] = [];

  constructor(readonly model: string) {}

  /** The assistant message a function call joins: the last message when it is an assistant's, else a new one. */
  assistantForCall(): JsonObject {
    const last = this.messages.at(-1);
    if (last?.role === 'assistant') return last;
    const message: JsonObject = { role: 'assistant', content: null };
    this.messages.push(message);
    return message;
  }
}

type ItemRule = (item: JsonObject, at: string, conversation: Conversation) => void;

const message: ItemRule = (item, at, conversation) => {
  const role = CHAT_ROLES[String(item.role)]!;
  const content = item.content as string | JsonObject[];
  const { model } = conversation;
  const mapped =
    role === 'assistant'
      ? assistantContent(content, `${at}.content`, model)
      : { content: chatContent(content, `${at}.content`, model) };
  conversation.messages.push({ role, ...mapped });
};

const functionCall: ItemRule = (item, at, conversation) => {
  // Namespaced functions are the Responses API's own (tool search); a chat tool is a flat name.
  if (item.namespace != null) throw Errors.unsupportedField(`${at}.namespace`, conversation.model);
  const assistant = conversation.assistantForCall();
  const calls = (assistant.tool_calls as JsonObject[] | undefined) ?? [];
  calls.push({
    id: item.call_id,
    type: 'function',
    function: { name: item.name, arguments: item.arguments },
  });
  assistant.tool_calls = calls;
};

const functionCallOutput: ItemRule = (item, at, conversation) => {
  const output = item.output as string | JsonObject[];
  conversation.messages.push({
    role: 'tool',
    tool_call_id: item.call_id,
    content: chatToolContent(output, `${at}.output`, conversation.model),
  });
};

const ITEM_RULES: Readonly<Record<string, ItemRule>> = {
  message,
  function_call: functionCall,
  function_call_output: functionCallOutput,
  reasoning: () => undefined,
};

function addItem(item: JsonObject, at: string, conversation: Conversation): void {
  const type = String(itemType(item));
  const rule = Object.hasOwn(ITEM_RULES, type) ? ITEM_RULES[type] : undefined;
  if (!rule) throw Errors.unsupportedField(at, conversation.model, `of type '${type}'`);
  rule(item, at, conversation);
}

/**
 * The chat `messages` for a validated Responses body: the instructions first, as the system message
 * OpenAI describes them as, then the input.
 */
export function chatMessages(body: JsonObject, model: string): JsonObject[] {
  const conversation = new Conversation(model);
  if (typeof body.instructions === 'string') {
    conversation.messages.push({ role: 'system', content: body.instructions });
  }
  const { input } = body;
  if (typeof input === 'string') conversation.messages.push({ role: 'user', content: input });
  else (input as JsonObject[]).forEach((item, i) => addItem(item, `input[${i}]`, conversation));
  if (conversation.messages.length === 0) {
    throw Errors.invalidRequest("field 'input' holds nothing a chat model can read");
  }
  return conversation.messages;
}
