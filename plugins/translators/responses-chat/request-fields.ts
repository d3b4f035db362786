/**
 * What each Responses request field becomes in the chat completions body: the shared rules
 * (responses-output/request-rules.ts) and chat's own. Fields OpenAI's chat API has under the same name
 * are sent on, for the family's own table to take or refuse, as for a chat client.
 *
 * Fields chat has no way to honour, refused by leaving them out of the table: `previous_response_id`,
 * `conversation` and `prompt` (nothing stores responses, conversations or prompts), `context_management`
 * (no compaction), `moderation`, `max_tool_calls` and `prompt_cache_options` (no chat counterpart).
 */
import { Errors } from '../../../core/kit/plugin';
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import { CHAT_FIELD_RULES } from '../../apis/chat-completions';
import type { FamilyFields } from '../../apis/field-table';
import {
  checkMembers,
  fieldsOf,
  type FieldRule,
  type FieldRules,
  reasoningEffort,
  send,
  SHARED_RULES,
} from '../responses-output/request-rules';
import { chatToolChoice, chatTools } from './tools';

/** `reasoning.effort` is chat's `reasoning_effort`, in the values chat's rules take. */
const reasoning: FieldRule = (value, chat, model) => {
  const effort = reasoningEffort(value, model);
  if (effort == null) return;
  if (!CHAT_FIELD_RULES.reasoning_effort.schema.safeParse(effort).success) {
    throw Errors.unsupportedField('reasoning.effort', model, `as ${JSON.stringify(effort)}`);
  }
  chat.reasoning_effort = effort;
};

/** `text.format` → chat's `response_format`: the same three formats, the schema's members nested. */
function responseFormat(format: unknown, model: string): JsonObject | undefined {
  if (!isJsonObject(format)) throw Errors.invalidRequest("field 'text.format' must be an object");
  if (format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type !== 'json_schema') {
    throw Errors.unsupportedField('text.format', model, `of type '${String(format.type)}'`);
  }
  if (typeof format.name !== 'string' || !isJsonObject(format.schema)) {
    throw Errors.invalidRequest(
      "field 'text.format' of type 'json_schema' needs a 'name' and a 'schema' object",
    );
  }
  const { type, ...schema } = format;
  void type;
  return { type: 'json_schema', json_schema: schema };
}

const TEXT_MEMBERS: ReadonlySet<string> = new Set(['format', 'verbosity']);

/** `text`: its format as `response_format`; `verbosity` goes on as OpenAI's chat API names it. */
const text: FieldRule = (value, chat, model) => {
  const t = value as JsonObject;
  checkMembers(t, 'text', TEXT_MEMBERS, model);
  if (t.format != null) {
    const format = responseFormat(t.format, model);
    if (format) chat.response_format = format;
  }
  if (t.verbosity != null) chat.verbosity = t.verbosity;
};

/**
 * Responses field → what it becomes in the chat body. `input` and `instructions` together become the
 * `messages` (input-items.ts).
 */
export const TO_CHAT = {
  ...SHARED_RULES,
  max_output_tokens: send('max_tokens'),
  temperature: send('temperature'),
  top_p: send('top_p'),
  parallel_tool_calls: send('parallel_tool_calls'),
  tools: (value, chat, model) => {
    chat.tools = chatTools(value as JsonObject[], model);
  },
  tool_choice: (value, chat, model) => {
    chat.tool_choice = chatToolChoice(value as string | JsonObject, model);
  },
  reasoning,
  text,
  user: send('user'),
  safety_identifier: send('safety_identifier'),
  prompt_cache_key: send('prompt_cache_key'),
  prompt_cache_retention: send('prompt_cache_retention'),
  service_tier: send('service_tier'),
} as const satisfies FieldRules;

/** The Responses fields this translation takes; the API's others are refused by the field check. */
export const RESPONSES_CHAT_FIELDS: FamilyFields = fieldsOf(TO_CHAT);
