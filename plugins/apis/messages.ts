/**
 * The messages API (`POST /v1/messages`) as the contract defines it
 * (docs/contract.md#messages-request): what every family serving it shares. The endpoint, its stream frames, the version header,
 * the content blocks, and the rules of the fields, some of several forms (`system` as a string or as an
 * array). Which model takes which field and form is the family's own table (MessagesFieldTable), declared
 * in its plugin; this file applies it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { checkCeiling, type ModelApi } from '../../core/kit/upstream';
import { Errors, type GatewayError } from '../../core/kit/plugin';
import type { JsonObject } from '../../core/kit/json';
import { stringsOf } from './finish-reasons';
import { openingTurns } from './conversation-start';
import { checkParts, type PartTable } from './content-parts';
import type { CheckedModel } from './checked-model';
import {
  fieldsCompiler,
  type ApiFields,
  type FamilyFields,
  type FieldRule,
  type FieldTable,
} from './field-table';

export const MESSAGES_VERSION_HEADER = 'modeld-version';
export const MESSAGES_VERSION = '2023-06-01';

export const MessagesApi: ModelApi = Object.freeze({
  id: 'messages',
  method: 'POST',
  path: '/v1/messages',
  dialect: Object.freeze({
    // The vendor's own keep-alive: SDKs skip `ping` events.
    ping: 'event: ping\ndata: {"type":"ping"}\n\n',
    // The vendor's in-stream error event, carrying the contract's error object; SDKs raise it.
    errorFrame: (error: GatewayError) =>
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: error.object() })}\n\n`,
  }),
  genAi: {
    operation: 'chat',
    maxTokens: ['max_tokens'],
    input: 'messages',
    output: 'content',
    finishReasons: {
      // A whole message states `stop_reason`; a stream says it in `message_delta`'s delta.
      marker: /"stop_reason"\s*:\s*"/,
      read: (answer: JsonObject) => stringsOf([answer, answer.delta], 'stop_reason'),
    },
  },
  // `system` is a field of its own; the turns are the user's and the assistant's.
  conversationStart: (body: JsonObject) => {
    const firstUser = openingTurns(body.messages)?.firstUser ?? null;
    return body.system === undefined && firstUser === null ? undefined : [body.system ?? null, firstUser];
  },
});

const object = z.looseObject({});
const block = z.looseObject({ type: z.string() });

const source = (types: readonly [string, ...string[]]) =>
  z.looseObject({ source: z.looseObject({ type: z.enum(types) }) });

const toolUse = z.looseObject({ id: z.string().min(1), name: z.string().min(1), input: object });
/** A server tool's result, which a client sends back with the assistant turn that holds it. */
const serverToolResult = z.looseObject({ tool_use_id: z.string().min(1), content: z.unknown() });

/**
 * Content blocks the vendor's Messages API defines for requests (docs/upstreams.md#modeld), including the server
 * tools' blocks a client echoes back in a multi-turn conversation.
 */
const BLOCKS: PartTable = {
  text: z.looseObject({ text: z.string() }),
  image: source(['base64', 'url', 'file']),
  document: source(['base64', 'url', 'text', 'content', 'file']),
  search_result: z.looseObject({ source: z.string(), title: z.string(), content: z.array(block) }),
  tool_use: toolUse,
  tool_result: z.looseObject({
    tool_use_id: z.string().min(1),
    content: z.union([z.string(), z.array(block)]).optional(),
    is_error: z.boolean().optional(),
  }),
  thinking: z.looseObject({ thinking: z.string(), signature: z.string() }),
  redacted_thinking: z.looseObject({ data: z.string() }),
  server_tool_use: toolUse,
  web_search_tool_result: serverToolResult,
  web_fetch_tool_result: serverToolResult,
  code_execution_tool_result: serverToolResult,
  bash_code_execution_tool_result: serverToolResult,
  text_editor_code_execution_tool_result: serverToolResult,
  container_upload: z.looseObject({ file_id: z.string().min(1) }),
};

/** A top-level `system` array holds text blocks only. */
const SYSTEM_BLOCKS: PartTable = { text: BLOCKS.text! };

/** The form of an object field whose `type` is `type`. */
const ofType = (type: string, as?: string): FieldRule => ({
  schema: z.looseObject({ type: z.literal(type) }),
  expect: `{"type":"${type}"}`,
  ...(as && { as }),
});

/** The rules of the fields the contract lists for messages; each family says which model takes which form. */
export const MESSAGES_FIELD_RULES = {
  max_tokens: { schema: z.int().min(1), expect: 'a positive integer' },
  stream: { schema: z.boolean(), expect: 'a boolean' },
  system: {
    forms: {
      string: { schema: z.string(), expect: 'a string' },
      array: { schema: z.array(block), expect: 'an array of content blocks', as: 'as an array' },
    },
  },
  temperature: { schema: z.number().min(0).max(1), expect: 'a number from 0 to 1' },
  top_p: { schema: z.number().min(0).max(1), expect: 'a number from 0 to 1' },
  top_k: { schema: z.int().min(0), expect: 'a non-negative integer' },
  stop_sequences: { schema: z.array(z.string()), expect: 'an array of strings' },
  tools: { schema: z.array(object), expect: 'an array of tool objects' },
  tool_choice: {
    forms: {
      auto: ofType('auto'),
      any: ofType('any'),
      tool: {
        schema: z.looseObject({ type: z.literal('tool'), name: z.string().min(1) }),
        expect: '{"type":"tool","name":…}',
      },
      none: ofType('none', "of type 'none'"),
    },
  },
  metadata: { schema: object, expect: 'an object' },
  thinking: {
    forms: {
      adaptive: ofType('adaptive'),
      disabled: ofType('disabled'),
      enabled: {
        schema: z.looseObject({ type: z.literal('enabled'), budget_tokens: z.int().min(1024) }),
        expect: '{"type":"enabled","budget_tokens":≥1024}',
        as: "of type 'enabled' (use type 'adaptive')",
      },
    },
  },
  output_config: { schema: object, expect: 'an object' },
} as const satisfies ApiFields;

/** A messages family's table: per field (and per form), the models that take it. */
export type MessagesFieldTable<Model extends string> = FieldTable<typeof MESSAGES_FIELD_RULES, Model>;

// `messages` is read apart from the rules.
export const messagesFields = fieldsCompiler(MESSAGES_FIELD_RULES, ['messages']);

/** What a valid request asks the response to carry. */
export interface MessagesCheck {
  /** Deprecation warnings about forms the request used. */
  readonly warnings: readonly string[];
}

/** `modeld-version` must be the one version the API knows. */
export function validateMessagesHeaders(headers: IncomingHttpHeaders): void {
  const version = headers[MESSAGES_VERSION_HEADER];
  const got = Array.isArray(version) ? version.join(', ') : version;
  if (got !== MESSAGES_VERSION) throw Errors.invalidHeader(MESSAGES_VERSION_HEADER, MESSAGES_VERSION, got);
}

/**
 * Checks a messages request against its family's fields for `model` and the model's ceilings; throws a 400
 * naming the field (and the model).
 */
export function validateMessagesRequest(
  body: JsonObject,
  fields: FamilyFields,
  model: CheckedModel,
): MessagesCheck {
  fields.require(body, model.id);
  validateMessages(body.messages);
  const warnings = fields.check(body, model.id);
  if (Array.isArray(body.system)) checkParts(body.system, SYSTEM_BLOCKS, 'system');
  checkCeiling('max_tokens', body.max_tokens, model.limits?.max_output_tokens, model.id);
  validateCombinations(body);
  return { warnings };
}

/** Rules that involve two fields. */
function validateCombinations(body: JsonObject): void {
  // The contract: temperature and top_p are alternatives.
  if (body.temperature != null && body.top_p != null) {
    throw Errors.invalidRequest("fields 'temperature' and 'top_p' are alternatives: send one of them");
  }
  const thinking = body.thinking as JsonObject | null | undefined;
  const budget = thinking?.budget_tokens;
  if (typeof budget === 'number' && typeof body.max_tokens === 'number' && budget >= body.max_tokens) {
    throw Errors.invalidRequest("field 'thinking.budget_tokens' must be less than 'max_tokens'");
  }
}

const ROLES = new Set(['user', 'assistant']);

function validateMessages(messages: unknown): void {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw Errors.invalidRequest("field 'messages' must be a non-empty array");
  }
  messages.forEach((message: unknown, i) => {
    if (!object.safeParse(message).success) {
      throw Errors.invalidRequest(`field 'messages[${i}]' must be an object`);
    }
    const { role, content } = message as JsonObject;
    if (role === 'system') {
      throw Errors.invalidRequest(
        `field 'messages[${i}].role' cannot be 'system': put the system prompt in the top-level 'system' field`,
      );
    }
    if (typeof role !== 'string' || !ROLES.has(role)) {
      throw Errors.invalidRequest(`field 'messages[${i}].role' must be user or assistant`);
    }
    if (typeof content !== 'string' && !Array.isArray(content)) {
      throw Errors.invalidRequest(
        `field 'messages[${i}].content' must be a string or an array of content blocks`,
      );
    }
    if (Array.isArray(content)) checkParts(content, BLOCKS, `messages[${i}].content`);
  });
}
