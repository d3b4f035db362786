/**
 * What each Responses request field becomes in the messages body: the shared rules
 * (responses-output/request-rules.ts) and messages' own. Fields messages has (`max_tokens`,
 * `temperature`, `top_p`, `tools`, …) are sent on under messages' names, for the family's own table to
 * take or refuse per model, as for a messages client.
 *
 * Fields messages has no way to honour, refused by leaving them out of the table: `previous_response_id`,
 * `conversation` and `prompt` (nothing stores responses, conversations or prompts), `context_management`
 * (no compaction), `moderation`, `max_tool_calls` and `prompt_cache_options` (no messages counterpart).
 * Those taken only in the value that asks nothing messages lacks are refused in any other.
 */
import { Errors } from '../../../core/kit/plugin';
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import type { FamilyFields } from '../../apis/field-table';
import {
  checkMembers,
  fieldsOf,
  type FieldRule,
  type FieldRules,
  kept,
  only,
  reasoningEffort,
  send,
  SHARED_RULES,
} from '../responses-output/request-rules';
import { messagesToolChoice, messagesTools } from './tools';

/**
 * `text.format` → messages' `output_config.format`: a JSON schema the answer follows. Messages has no
 * JSON mode without a schema, so `json_object` is refused.
 */
function outputFormat(format: unknown, model: string): JsonObject | undefined {
  if (!isJsonObject(format)) throw Errors.invalidRequest("field 'text.format' must be an object");
  if (format.type === 'text') return undefined;
  if (format.type !== 'json_schema') {
    throw Errors.unsupportedField('text.format', model, `of type '${String(format.type)}'`);
  }
  if (!isJsonObject(format.schema)) {
    throw Errors.invalidRequest("field 'text.format' of type 'json_schema' needs a 'schema' object");
  }
  return { type: 'json_schema', schema: format.schema };
}

const TEXT_MEMBERS: ReadonlySet<string> = new Set(['format', 'verbosity']);

/** `text`: its format as the output format; messages has no verbosity, so only the API's default is taken. */
const text: FieldRule = (value, target, model) => {
  const t = value as JsonObject;
  checkMembers(t, 'text', TEXT_MEMBERS, model);
  if (t.verbosity != null) only('text.verbosity', 'medium')(t.verbosity, target, model);
  const format = t.format == null ? undefined : outputFormat(t.format, model);
  if (format) target.output_config = { format };
};

/** The end user, as messages' `metadata.user_id`; `safety_identifier`, which replaces `user`, wins. */
const userId =
  (replaces: boolean): FieldRule =>
  (value, target) => {
    const metadata = target.metadata as JsonObject | undefined;
    if (!replaces && metadata?.user_id !== undefined) return;
    target.metadata = { user_id: value };
  };

/**
 * Responses field → what it becomes in the messages body. `input` and `instructions` together become
 * `system` and `messages` (input-items.ts); `reasoning.effort` and `parallel_tool_calls` are applied
 * once every field is read (request.ts), since each depends on another (`max_tokens`, `tools`).
 */
export const TO_MESSAGES = {
  ...SHARED_RULES,
  max_output_tokens: send('max_tokens'),
  temperature: send('temperature'),
  top_p: send('top_p'),
  parallel_tool_calls: kept,
  tools: (value, target, model) => {
    target.tools = messagesTools(value as JsonObject[], model);
  },
  tool_choice: (value, target, model) => {
    target.tool_choice = messagesToolChoice(value as string | JsonObject, model);
  },
  reasoning: (value, _target, model) => void reasoningEffort(value, model),
  text,
  user: userId(false),
  safety_identifier: userId(true),
  // A routing hint for OpenAI's prompt cache; messages caches by prefix whatever the key, so the answer
  // is the same with or without it. The Response repeats it.
  prompt_cache_key: kept,
  // Messages keeps a cached prefix minutes, not a day: only the default is taken.
  prompt_cache_retention: only('prompt_cache_retention', 'in_memory'),
  service_tier: only('service_tier', 'auto'),
} as const satisfies FieldRules;

/** The Responses fields this translation takes; the API's others are refused by the field check. */
export const RESPONSES_MESSAGES_FIELDS: FamilyFields = fieldsOf(TO_MESSAGES);
