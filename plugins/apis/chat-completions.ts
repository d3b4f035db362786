/**
 * The OpenAI-style chat completions API (`POST /v1/chat/completions`): what every chat family shares.
 * The endpoint, its stream frames, the messages, and the rules of the fields the contract defines (what a
 * valid value is). Which fields a family takes, requires or refuses is the family's own table
 * (ChatFieldTable), declared in its plugin; this file only applies it.
 */
import { z } from 'zod';
import { checkCeiling, type ModelApi, type StreamDialect } from '../../core/kit/upstream';
import { Errors } from '../../core/kit/plugin';
import type { JsonObject } from '../../core/kit/json';
import { stringsOf } from './finish-reasons';
import { openingTurns } from './conversation-start';
import { checkParts, type PartTable } from './content-parts';
import type { CheckedModel } from './checked-model';
import { fieldsCompiler, type ApiFields, type FamilyFields, type FieldTable } from './field-table';

/** The frames the gateway writes into OpenAI-style streams. */
export const OpenAiStreamDialect: StreamDialect = Object.freeze({
  // A comment line: OpenAI-style clients skip it, idle proxies see traffic.
  ping: ': ping\n\n',
  // OpenAI's SDKs raise an error for a data chunk that carries an `error` key.
  errorFrame: (error: { body(): string }) => `data: ${error.body()}\n\n`,
});

export const ChatCompletionsApi: ModelApi = Object.freeze({
  id: 'chat-completions',
  method: 'POST',
  path: '/v1/chat/completions',
  dialect: OpenAiStreamDialect,
  genAi: {
    operation: 'chat',
    maxTokens: ['max_completion_tokens', 'max_tokens'],
    input: 'messages',
    output: 'choices',
    finishReasons: {
      // Every chunk has the member, null until the choice ends: only a chunk with a value is read.
      marker: /"finish_reason"\s*:\s*"/,
      read: (answer: JsonObject) => stringsOf(answer.choices, 'finish_reason'),
    },
  },
  conversationStart: (body: JsonObject) => {
    const opening = openingTurns(body.messages);
    return opening && [opening.system, opening.firstUser];
  },
});

const object = z.looseObject({});

/** The rules of the fields the contract lists for chat; each family says which of them it takes. */
export const CHAT_FIELD_RULES = {
  stream: { schema: z.boolean(), expect: 'a boolean' },
  stream_options: { schema: object, expect: 'an object' },
  temperature: { schema: z.number().min(0).max(2), expect: 'a number from 0 to 2' },
  top_p: { schema: z.number().min(0).max(1), expect: 'a number from 0 to 1' },
  max_tokens: { schema: z.int().min(1), expect: 'a positive integer' },
  n: { schema: z.int().min(1), expect: 'an integer of at least 1' },
  stop: { schema: z.union([z.string(), z.array(z.string())]), expect: 'an array of strings' },
  presence_penalty: { schema: z.number().min(-2).max(2), expect: 'a number from -2 to 2' },
  frequency_penalty: { schema: z.number().min(-2).max(2), expect: 'a number from -2 to 2' },
  repetition_penalty: { schema: z.number().positive(), expect: 'a positive number' },
  logprobs: { schema: z.boolean(), expect: 'a boolean' },
  top_logprobs: { schema: z.int().min(0).max(20), expect: 'an integer from 0 to 20' },
  seed: { schema: z.int(), expect: 'an integer' },
  reasoning_effort: { schema: z.enum(['low', 'medium', 'high']), expect: 'one of low, medium, high' },
  enable_thinking: { schema: z.boolean(), expect: 'a boolean' },
  tools: { schema: z.array(object), expect: 'an array of tool objects' },
  tool_choice: {
    schema: z.union([z.enum(['auto', 'none', 'required']), object]),
    expect: 'auto, none, required or a named tool object',
  },
  parallel_tool_calls: { schema: z.boolean(), expect: 'a boolean' },
  response_format: { schema: object, expect: 'an object' },
  extra_body: { schema: object, expect: 'an object' },
  user: { schema: z.string(), expect: 'a string' },
} as const satisfies ApiFields;

export type ChatField = keyof typeof CHAT_FIELD_RULES;

/**
 * The fields OpenAI's chat API defines that every OpenAI-compatible vendor takes, for a family's table
 * to start from; each family adds its own (and may leave these out, field by field).
 */
export const OPENAI_CHAT_FIELDS = [
  'stream',
  'temperature',
  'top_p',
  'max_tokens',
  'n',
  'stop',
  'presence_penalty',
  'tools',
  'tool_choice',
  'response_format',
] as const satisfies readonly ChatField[];

/** A family's column of the field table, declared in its plugin. */
export type ChatFieldTable = FieldTable<typeof CHAT_FIELD_RULES>;

/** What validateChatRequest reads apart from the field rules: a translating family maps it itself. */
const CHAT_BODY: readonly string[] = ['messages'];

export const chatFields = fieldsCompiler(CHAT_FIELD_RULES, CHAT_BODY);

const url = z.looseObject({ url: z.string().min(1) });

/**
 * Content parts of a message: the contract's text part, and the other parts OpenAI's API and DashScope's
 * compatible mode define (images, audio, files, videos, an assistant's refusal).
 */
const CHAT_PARTS: PartTable = {
  text: z.looseObject({ text: z.string() }),
  image_url: z.looseObject({ image_url: url }),
  input_audio: z.looseObject({ input_audio: z.looseObject({ data: z.string(), format: z.string() }) }),
  file: z.looseObject({ file: object }),
  refusal: z.looseObject({ refusal: z.string() }),
  video_url: z.looseObject({ video_url: url }),
  video: z.looseObject({ video: z.array(z.string()) }),
};

/** Roles the contract names, plus `tool`, without which the tool results of a multi-turn call could not be sent. */
const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** Fields that ask for generated tokens: the contract's name and OpenAI's current one, which passes through. */
const OUTPUT_TOKEN_FIELDS: readonly string[] = ['max_tokens', 'max_completion_tokens'];

/**
 * Checks a chat request against its family's fields and the model's ceilings; throws a 400 naming the
 * field (and the model).
 */
export function validateChatRequest(body: JsonObject, fields: FamilyFields, model: CheckedModel): void {
  const { id, limits = {} } = model;
  validateMessages(body.messages);
  fields.require(body, id);
  fields.check(body, id);

  if (body.top_logprobs != null && body.logprobs !== true) {
    throw Errors.invalidRequest("field 'top_logprobs' requires 'logprobs': true");
  }
  for (const field of OUTPUT_TOKEN_FIELDS) checkCeiling(field, body[field], limits.max_output_tokens, id);
  checkCeiling('n', body.n, limits.max_n, id);
}

function validateMessages(messages: unknown): void {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw Errors.invalidRequest("field 'messages' must be a non-empty array");
  }
  messages.forEach((message: unknown, i) => {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      throw Errors.invalidRequest(`field 'messages[${i}]' must be an object`);
    }
    const { role, content } = message as JsonObject;
    if (typeof role !== 'string' || !ROLES.has(role)) {
      throw Errors.invalidRequest(`field 'messages[${i}].role' must be one of system, user, assistant, tool`);
    }
    const hasToolCalls = role === 'assistant' && Array.isArray((message as JsonObject).tool_calls);
    const validContent =
      typeof content === 'string' || Array.isArray(content) || (content == null && hasToolCalls);
    if (!validContent) {
      throw Errors.invalidRequest(
        `field 'messages[${i}].content' must be a string or an array of content parts`,
      );
    }
    if (Array.isArray(content)) checkParts(content, CHAT_PARTS, `messages[${i}].content`);
  });
}
