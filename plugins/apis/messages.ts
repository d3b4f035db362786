/**
 * The messages API (`POST /v1/messages`) as the contract defines it: the endpoint, its stream frames, the
 * version header, and the per-model field table (SERVICE-INTERFACE.md, "Messages request"). A field may
 * have several forms (`system` as a string or as an array); each form lists the models that accept it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { JsonObject } from '../../core/context';
import { Errors, type GatewayError } from '../../core/errors';
import type { ModelApi } from '../../core/plugin';
import { checkCeiling, type ModelLimits } from '../../core/routing/model-limits';
import { checkParts, type PartTable } from './content-parts';
import { forEachListedField } from './field-table';

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
});

const SONNET_46 = 'modeld-sonnet-4-6';
const OPUS_48 = 'modeld-opus-4-8';
const SONNET_45 = 'modeld-sonnet-4-5-20250929';
const OPUS_46 = 'modeld-opus-4-6';
export const MESSAGES_MODELS = [SONNET_46, OPUS_48, SONNET_45, OPUS_46] as const;

const ALL: readonly string[] = MESSAGES_MODELS;
const LATEST: readonly string[] = [SONNET_46, OPUS_48];
const SAMPLING: readonly string[] = [SONNET_46, SONNET_45, OPUS_46];

/** One accepted shape of a field and the models that accept it in that shape. */
interface FieldForm {
  readonly schema: z.ZodType;
  /** What a valid value is, for the 400 message. */
  readonly expect: string;
  readonly models: readonly string[];
  /** Names this form in a refusal when other forms of the field are accepted, e.g. `as an array`. */
  readonly as?: string;
  /** Still accepted, but deprecated: the warning the response carries. */
  readonly deprecated?: string;
}

const object = z.looseObject({});
const block = z.looseObject({ type: z.string() });
const form = (
  schema: z.ZodType,
  expect: string,
  models: readonly string[],
  extra: Pick<FieldForm, 'as' | 'deprecated'> = {},
): FieldForm => ({ schema, expect, models, ...extra });

const source = (types: readonly [string, ...string[]]) =>
  z.looseObject({ source: z.looseObject({ type: z.enum(types) }) });

const toolUse = z.looseObject({ id: z.string().min(1), name: z.string().min(1), input: object });
/** A server tool's result, which a client sends back with the assistant turn that holds it. */
const serverToolResult = z.looseObject({ tool_use_id: z.string().min(1), content: z.unknown() });

/**
 * Content blocks the vendor's Messages API defines for requests (UPSTREAMS.md §2), including the server
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

const THINKING_DEPRECATED = `thinking type 'enabled' with budget_tokens is deprecated on ${SONNET_46}; use type 'adaptive'`;

/** The contract's table. A field not listed here is passed to the upstream unchanged. */
export const MESSAGES_FIELDS: Readonly<Record<string, readonly FieldForm[]>> = {
  max_tokens: [form(z.int().min(1), 'a positive integer', ALL)],
  stream: [form(z.boolean(), 'a boolean', ALL)],
  system: [
    form(z.string(), 'a string', ALL),
    form(z.array(block), 'an array of content blocks', LATEST, { as: 'as an array' }),
  ],
  temperature: [form(z.number().min(0).max(1), 'a number from 0 to 1', SAMPLING)],
  top_p: [form(z.number().min(0).max(1), 'a number from 0 to 1', SAMPLING)],
  top_k: [form(z.int().min(0), 'a non-negative integer', [SONNET_46])],
  stop_sequences: [form(z.array(z.string()), 'an array of strings', ALL)],
  tools: [form(z.array(object), 'an array of tool objects', ALL)],
  tool_choice: [
    form(z.looseObject({ type: z.enum(['auto', 'any']) }), '{"type":"auto"} or {"type":"any"}', ALL),
    form(
      z.looseObject({ type: z.literal('tool'), name: z.string().min(1) }),
      '{"type":"tool","name":…}',
      ALL,
    ),
    form(z.looseObject({ type: z.literal('none') }), '{"type":"none"}', LATEST, { as: "of type 'none'" }),
  ],
  metadata: [form(object, 'an object', LATEST)],
  thinking: [
    form(z.looseObject({ type: z.literal('adaptive') }), '{"type":"adaptive"}', LATEST),
    form(z.looseObject({ type: z.literal('disabled') }), '{"type":"disabled"}', LATEST),
    form(
      z.looseObject({ type: z.literal('enabled'), budget_tokens: z.int().min(1024) }),
      '{"type":"enabled","budget_tokens":≥1024}',
      [SONNET_46],
      { as: "of type 'enabled' (use type 'adaptive')", deprecated: THINKING_DEPRECATED },
    ),
  ],
  output_config: [form(object, 'an object', LATEST)],
};

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

/** Checks a messages request against the table for `model`; throws a 400 naming the field (and the model). */
export function validateMessagesRequest(
  body: JsonObject,
  model: string,
  limits: ModelLimits = {},
): MessagesCheck {
  if (body.max_tokens == null) throw Errors.invalidRequest("field 'max_tokens' is required");
  validateMessages(body.messages);
  const warnings: string[] = [];
  forEachListedField(body, MESSAGES_FIELDS, (field, value, forms) => {
    const used = formOf(field, forms, value, model);
    if (used.deprecated) warnings.push(used.deprecated);
  });
  if (Array.isArray(body.system)) checkParts(body.system, SYSTEM_BLOCKS, 'system');
  checkCeiling('max_tokens', body.max_tokens, limits.max_output_tokens, model);
  validateCombinations(body);
  return { warnings };
}

/** The form `value` takes, if `model` accepts it in that form. */
function formOf(field: string, forms: readonly FieldForm[], value: unknown, model: string): FieldForm {
  const own = forms.filter((f) => f.models.includes(model));
  if (own.length === 0) throw Errors.unsupportedField(field, model);
  const used = forms.find((f) => f.schema.safeParse(value).success);
  if (!used) throw Errors.invalidRequest(`field '${field}' must be ${own.map((f) => f.expect).join(' or ')}`);
  if (!used.models.includes(model)) throw Errors.unsupportedField(field, model, used.as);
  return used;
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
