/**
 * OpenAI's Responses API (`POST /v1/responses`): the endpoint, its stream frames, and the rules of its
 * request fields (what a valid value is). Which fields a server of the API takes is its own table
 * (ResponsesFieldTable), as for chat: the translator onto chat completions declares one, and refuses
 * with a 400 naming the field what chat cannot honour. Shapes follow the `openai` SDK's
 * `ResponseCreateParamsBase` and stream event types (node_modules/openai/resources/responses).
 */
import { z } from 'zod';
import { checkCeiling, type ModelApi, type StreamDialect } from '../../core/kit/upstream';
import { Errors, type GatewayError } from '../../core/kit/plugin';
import { isJsonObject, type JsonObject } from '../../core/kit/json';
import { checkParts, type PartTable } from './content-parts';
import { responseFinish } from './finish-reasons';
import { openingTurns } from './conversation-start';
import type { CheckedModel } from './checked-model';
import { fieldsCompiler, type ApiFields, type FamilyFields, type FieldTable } from './field-table';

/** What a Responses stream's `error` event says: the API's members, each a string or null. */
export interface StreamError {
  readonly code: string | null;
  readonly message: string;
  readonly param: string | null;
  /** The error's class (`server_error`, `insufficient_quota`; the contract's own errors say `error`). */
  readonly type: string;
}

/**
 * The payload of a Responses stream's `error` event. The API reference and the SDK's `ResponseErrorEvent`
 * put `code`, `message` and `param` at the top; the live API sends them nested under `error` (recorded
 * in test/kit/fixtures/responses/stream-error.jsonl), and that nested object is what the SDKs raise as an
 * APIError. Both are written, so a client reading either shape sees the failure. `sequence` is the
 * event's place in its stream, left out where the writer cannot know it (ResponsesStreamDialect).
 */
export function streamErrorPayload(error: StreamError, sequence?: number): JsonObject {
  const { code, message, param, type } = error;
  return {
    type: 'error',
    code,
    message,
    param,
    error: { type, code, message, param },
    ...(sequence === undefined ? {} : { sequence_number: sequence }),
  };
}

/** An event of a Responses stream: the event name is the payload's `type`, as the API writes it. */
export const responsesFrame = (payload: JsonObject): string =>
  `event: ${String(payload.type)}\ndata: ${JSON.stringify(payload)}\n\n`;

/**
 * The frames the gateway writes into a Responses stream by itself. The ping is a comment, which SSE
 * parsers skip. The error frame is the API's `error` event; a dialect is shared by every stream, so it
 * cannot number the event: a translating reader that can (ResponsesFromChatReader.errorFrame) should be
 * preferred by whoever writes the frame.
 */
export const ResponsesStreamDialect: StreamDialect = Object.freeze({
  ping: ': ping\n\n',
  errorFrame: (error: GatewayError) => {
    const { code, message, type } = error.object();
    return responsesFrame(streamErrorPayload({ code, message, param: null, type }));
  },
});

export const ResponsesApi: ModelApi = Object.freeze({
  id: 'responses',
  method: 'POST',
  path: '/v1/responses',
  dialect: ResponsesStreamDialect,
  genAi: {
    operation: 'chat',
    maxTokens: ['max_output_tokens'],
    input: 'input',
    output: 'output',
    finishReasons: {
      // A Response object, whole or in the stream's last event.
      marker: /"type"\s*:\s*"response\.(?:completed|incomplete|failed)"|"object"\s*:\s*"response"/,
      read: responseFinish,
    },
  },
  // `instructions`, then `input`: a string is the first user turn, a list holds the turns. A call that
  // continues a stored response (`previous_response_id`) sends only its new turns: it opens anew.
  conversationStart: (body: JsonObject) => {
    const { instructions = null, input } = body;
    const opening = typeof input === 'string' ? { system: [], firstUser: input } : openingTurns(input);
    if (instructions === null && !opening) return undefined;
    return [instructions, opening?.system ?? [], opening?.firstUser ?? null];
  },
});

const object = z.looseObject({});
const ofType = z.looseObject({ type: z.string().min(1) });

/**
 * `metadata`: at most 16 pairs, keys of at most 64 characters and values of at most 512 (the API
 * reference and the SDK's `Shared.Metadata`).
 */
const metadata = z.record(z.string().max(64), z.string().max(512)).refine((m) => Object.keys(m).length <= 16);

/** The rules of the request fields the API defines; a server's table says which it takes. */
export const RESPONSES_FIELD_RULES = {
  // Each item is checked apart (checkInput), so a 400 names the one at fault.
  input: {
    schema: z.union([z.string(), z.array(z.unknown())]),
    expect: 'a string or an array of input items',
  },
  instructions: { schema: z.string(), expect: 'a string' },
  // The API refuses fewer: "integer below minimum value. Expected a value >= 16".
  max_output_tokens: { schema: z.int().min(16), expect: 'an integer of at least 16' },
  temperature: { schema: z.number().min(0).max(2), expect: 'a number from 0 to 2' },
  top_p: { schema: z.number().min(0).max(1), expect: 'a number from 0 to 1' },
  top_logprobs: { schema: z.int().min(0).max(20), expect: 'an integer from 0 to 20' },
  parallel_tool_calls: { schema: z.boolean(), expect: 'a boolean' },
  tools: { schema: z.array(ofType), expect: 'an array of tool objects with a type' },
  tool_choice: {
    schema: z.union([z.enum(['auto', 'none', 'required']), ofType]),
    expect: 'auto, none, required or a tool choice object',
  },
  reasoning: { schema: object, expect: 'an object' },
  text: { schema: object, expect: 'an object' },
  stream: { schema: z.boolean(), expect: 'a boolean' },
  stream_options: { schema: object, expect: 'an object' },
  metadata: { schema: metadata, expect: 'an object of at most 16 strings' },
  user: { schema: z.string(), expect: 'a string' },
  safety_identifier: { schema: z.string().max(64), expect: 'a string of at most 64 characters' },
  prompt_cache_key: { schema: z.string(), expect: 'a string' },
  prompt_cache_retention: { schema: z.enum(['in_memory', '24h']), expect: 'in_memory or 24h' },
  prompt_cache_options: { schema: object, expect: 'an object' },
  service_tier: {
    schema: z.enum(['auto', 'default', 'flex', 'scale', 'priority']),
    expect: 'one of auto, default, flex, scale, priority',
  },
  include: { schema: z.array(z.string()), expect: 'an array of strings' },
  store: { schema: z.boolean(), expect: 'a boolean' },
  background: { schema: z.boolean(), expect: 'a boolean' },
  truncation: { schema: z.enum(['auto', 'disabled']), expect: 'auto or disabled' },
  previous_response_id: { schema: z.string().min(1), expect: 'a response id' },
  conversation: { schema: z.union([z.string(), object]), expect: 'a conversation id or object' },
  prompt: { schema: object, expect: 'an object' },
  context_management: { schema: z.array(object), expect: 'an array of objects' },
  moderation: { schema: object, expect: 'an object' },
  max_tool_calls: { schema: z.int().min(1), expect: 'a positive integer' },
} as const satisfies ApiFields;

export type ResponsesField = keyof typeof RESPONSES_FIELD_RULES;

/** A server's column of the field table. */
export type ResponsesFieldTable = FieldTable<typeof RESPONSES_FIELD_RULES>;

export const responsesFields = fieldsCompiler(RESPONSES_FIELD_RULES);

/** Roles of a `message` input item (`EasyInputMessage`). */
const MESSAGE_ROLES = ['user', 'assistant', 'system', 'developer'] as const;

/**
 * Content parts of a message item: the input parts (`ResponseInputContent`) and the parts of an output
 * message a client sends back in a later turn (`ResponseOutputText`, `ResponseOutputRefusal`).
 */
const MESSAGE_PARTS: PartTable = {
  input_text: z.looseObject({ text: z.string() }),
  input_image: z.looseObject({ image_url: z.string().nullish(), file_id: z.string().nullish() }),
  input_file: object,
  output_text: z.looseObject({ text: z.string() }),
  refusal: z.looseObject({ refusal: z.string() }),
};

/** The input items whose shape is checked here; a server refuses the types it does not take. */
const ITEMS: Readonly<Record<string, z.ZodType>> = {
  message: z.looseObject({
    role: z.enum(MESSAGE_ROLES),
    content: z.union([z.string(), z.array(object)]),
  }),
  function_call: z.looseObject({
    call_id: z.string().min(1),
    name: z.string().min(1),
    arguments: z.string(),
  }),
  function_call_output: z.looseObject({
    call_id: z.string().min(1),
    output: z.union([z.string(), z.array(object)]),
  }),
  // A previous turn's reasoning sent back (`ResponseReasoningItem`), sealed when the client kept no store.
  reasoning: z.looseObject({
    summary: z.array(object),
    content: z.array(object).nullish(),
    encrypted_content: z.string().nullish(),
  }),
};

/** An input item's type: a message may leave it out (`EasyInputMessage`). */
export const itemType = (item: JsonObject): unknown =>
  item.type === undefined && 'role' in item ? 'message' : item.type;

function checkItem(item: JsonObject, at: string): void {
  const type = itemType(item);
  if (typeof type !== 'string') throw Errors.invalidRequest(`field '${at}.type' must be a string`);
  const schema = ITEMS[type];
  if (schema && !schema.safeParse(item).success) {
    throw Errors.invalidRequest(`field '${at}' is not a valid '${type}' item`);
  }
  if (type === 'message' && Array.isArray(item.content))
    checkParts(item.content, MESSAGE_PARTS, `${at}.content`);
  if (type === 'function_call_output' && Array.isArray(item.output)) {
    checkParts(item.output, MESSAGE_PARTS, `${at}.output`);
  }
}

function checkInput(input: unknown): void {
  if (typeof input === 'string') {
    if (input === '') throw Errors.invalidRequest("field 'input' must not be empty");
    return;
  }
  if (!Array.isArray(input) || input.length === 0) {
    throw Errors.invalidRequest("field 'input' must be a string or a non-empty array of input items");
  }
  input.forEach((item: unknown, i) => {
    if (!isJsonObject(item)) throw Errors.invalidRequest(`field 'input[${i}]' must be an object`);
    checkItem(item, `input[${i}]`);
  });
}

/**
 * Checks a Responses request against a server's fields and the model's ceilings; throws a 400 naming the
 * field (and the model). The `input` is required: without a stored prompt or conversation there is
 * nothing else to answer.
 */
export function validateResponsesRequest(body: JsonObject, fields: FamilyFields, model: CheckedModel): void {
  if (body.input == null) throw Errors.invalidRequest("field 'input' is required");
  fields.check(body, model.id);
  checkInput(body.input);
  checkCeiling('max_output_tokens', body.max_output_tokens, model.limits?.max_output_tokens, model.id);
}
