/**
 * What each Responses request field becomes in the chat completions body: one rule per field. A field
 * is sent on (under chat's name), kept for the Response's echo only (what it asks is done by the
 * translation itself), or refused in the values chat cannot honour. A field without a rule is refused
 * whole (field-table.ts refuses the API's own, request.ts any other): none passes to chat untranslated,
 * and none is dropped without a word.
 *
 * Fields chat has no way to honour, refused by leaving them out of the table: `previous_response_id`,
 * `conversation` and `prompt` (nothing stores responses, conversations or prompts), `context_management`
 * (no compaction), `moderation`, `max_tool_calls` and `prompt_cache_options` (no chat counterpart).
 */
import { Errors, isJsonObject, type JsonObject } from '../../../core/kit';
import { CHAT_FIELD_RULES } from '../../apis/chat-completions';
import type { FamilyFields } from '../../apis/field-table';
import { responsesFields, type ResponsesField } from '../../apis/responses';
import { chatToolChoice, chatTools } from './tools';

/** Adds what one field's `value` asks to the chat body, or throws the 400 refusing it. */
type ToChat = (value: unknown, chat: JsonObject, model: string) => void;

/** Sent on under chat's name for it. */
const send =
  (name: string): ToChat =>
  (value, chat) => {
    chat[name] = value;
  };

/** Done by the translation itself, or only repeated in the Response. */
const kept: ToChat = () => undefined;

/** Taken only as `fallback`, the value that asks for nothing chat lacks; any other value is refused. */
const only =
  (field: string, fallback: unknown): ToChat =>
  (value, _chat, model) => {
    if (value !== fallback) throw Errors.unsupportedField(field, model, `as ${JSON.stringify(value)}`);
  };

/** Refuses the members of an object field that have no rule (null counts as absent). */
function checkMembers(value: JsonObject, field: string, known: ReadonlySet<string>, model: string): void {
  for (const [key, v] of Object.entries(value)) {
    if (v != null && !known.has(key)) throw Errors.unsupportedField(`${field}.${key}`, model);
  }
}

const REASONING_MEMBERS: ReadonlySet<string> = new Set(['effort', 'summary', 'generate_summary']);
const SUMMARIES: ReadonlySet<unknown> = new Set(['auto', 'concise', 'detailed']);

/**
 * `reasoning.effort` is chat's `reasoning_effort`, in the values chat's rules take. A summary cannot be
 * written by a chat model, and the API itself answers with an empty `summary` where none was produced,
 * so asking for one is taken: the reasoning the vendor returns comes as the item's `reasoning_text`.
 */
const reasoning: ToChat = (value, chat, model) => {
  const r = value as JsonObject;
  checkMembers(r, 'reasoning', REASONING_MEMBERS, model);
  for (const key of ['summary', 'generate_summary']) {
    if (r[key] != null && !SUMMARIES.has(r[key])) {
      throw Errors.invalidRequest(`field 'reasoning.${key}' must be one of auto, concise, detailed`);
    }
  }
  if (r.effort == null) return;
  if (!CHAT_FIELD_RULES.reasoning_effort.schema.safeParse(r.effort).success) {
    throw Errors.unsupportedField('reasoning.effort', model, `as ${JSON.stringify(r.effort)}`);
  }
  chat.reasoning_effort = r.effort;
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
const text: ToChat = (value, chat, model) => {
  const t = value as JsonObject;
  checkMembers(t, 'text', TEXT_MEMBERS, model);
  if (t.format != null) {
    const format = responseFormat(t.format, model);
    if (format) chat.response_format = format;
  }
  if (t.verbosity != null) chat.verbosity = t.verbosity;
};

const STREAM_OPTIONS: ReadonlySet<string> = new Set(['include_obfuscation']);

/**
 * `stream_options` holds only `include_obfuscation`, random padding against a side channel: the
 * gateway's events carry none either way, which changes nothing a client reads.
 */
const streamOptions: ToChat = (value, _chat, model) =>
  checkMembers(value as JsonObject, 'stream_options', STREAM_OPTIONS, model);

/**
 * `include` asks for data only OpenAI's own tools and storage produce (search results, encrypted
 * reasoning, output logprobs): none can be filled from a chat answer, so every entry is refused.
 */
const include: ToChat = (value, _chat, model) => {
  const entries = value as readonly string[];
  if (entries.length > 0)
    throw Errors.unsupportedField('include[0]', model, `as ${JSON.stringify(entries[0])}`);
};

/**
 * Responses field → what it becomes in the chat body. `input` and `instructions` together become the
 * `messages` (input-items.ts). Fields OpenAI's chat API has under the same name are sent on, for the
 * family's own table to take or refuse, as for a chat client.
 */
export const TO_CHAT = {
  input: kept,
  instructions: kept,
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
  stream: send('stream'),
  stream_options: streamOptions,
  // Metadata describes the Response, which repeats it; nothing stores it, so nothing else is asked.
  metadata: kept,
  user: send('user'),
  safety_identifier: send('safety_identifier'),
  prompt_cache_key: send('prompt_cache_key'),
  prompt_cache_retention: send('prompt_cache_retention'),
  service_tier: send('service_tier'),
  // Logprobs would need chat's `logprobs` mapped into every text event: not offered.
  top_logprobs: only('top_logprobs', 0),
  include,
  // Nothing stores responses; absent, the API's default (true) is not a request to store anything.
  store: only('store', false),
  background: only('background', false),
  // Chat fails a request over the context window: `auto` (drop the oldest input) cannot be honoured.
  truncation: only('truncation', 'disabled'),
} as const satisfies Partial<Record<ResponsesField, ToChat>>;

/** The Responses fields this translation takes; the API's others are refused by the field check. */
export const RESPONSES_CHAT_FIELDS: FamilyFields = responsesFields({
  accepts: Object.keys(TO_CHAT) as ResponsesField[],
});

/** The rule of a body field, or undefined for a field the translation does not take. */
export const ruleOf = (field: string): ToChat | undefined =>
  Object.hasOwn(TO_CHAT, field) ? (TO_CHAT as Readonly<Record<string, ToChat>>)[field] : undefined;
