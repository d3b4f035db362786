/**
 * What each Responses request field becomes in the target API's body: one rule per field, in a table
 * each translator declares. A field is sent on (under the target's name), kept for the Response's echo
 * only (what it asks is done by the translation itself), or refused in the values the target cannot
 * honour. A field without a rule is refused whole (field-table.ts refuses the API's own, `translateFields`
 * any other): none passes to the target untranslated, and none is dropped without a word. The rules here
 * are those every target shares.
 */
import { Errors } from '../../../core/kit/plugin';
import type { JsonObject } from '../../../core/kit/json';
import type { ModelSpec } from '../../../core/kit/upstream';
import type { FamilyFields } from '../../apis/field-table';
import { responsesFields, validateResponsesRequest, type ResponsesField } from '../../apis/responses';

/** Adds what one field's `value` asks to the target's body, or throws the 400 refusing it. */
export type FieldRule = (value: unknown, target: JsonObject, model: string) => void;

/** A translator's rules, by the Responses field each decides. */
export type FieldRules = Partial<Record<ResponsesField, FieldRule>>;

/** Sent on under the target's name for it. */
export const send =
  (name: string): FieldRule =>
  (value, target) => {
    target[name] = value;
  };

/** Done by the translation itself, or only repeated in the Response. */
export const kept: FieldRule = () => undefined;

/** Taken only as `fallback`, the value that asks for nothing the target lacks; any other value is refused. */
export const only =
  (field: string, fallback: unknown): FieldRule =>
  (value, _target, model) => {
    if (value !== fallback) throw Errors.unsupportedField(field, model, `as ${JSON.stringify(value)}`);
  };

/** Refuses the members of an object field that have no rule (null counts as absent). */
export function checkMembers(
  value: JsonObject,
  field: string,
  known: ReadonlySet<string>,
  model: string,
): void {
  for (const [key, v] of Object.entries(value)) {
    if (v != null && !known.has(key)) throw Errors.unsupportedField(`${field}.${key}`, model);
  }
}

const REASONING_MEMBERS: ReadonlySet<string> = new Set(['effort', 'summary', 'generate_summary']);
const SUMMARIES: ReadonlySet<unknown> = new Set(['auto', 'concise', 'detailed']);

/**
 * `reasoning` checked, its effort left to the target. A summary cannot be written by these models, and
 * the API itself answers with an empty `summary` where none was produced, so asking for one is taken:
 * the reasoning the upstream returns comes as the item's `reasoning_text`.
 */
export function reasoningEffort(value: unknown, model: string): unknown {
  const r = value as JsonObject;
  checkMembers(r, 'reasoning', REASONING_MEMBERS, model);
  for (const key of ['summary', 'generate_summary']) {
    if (r[key] != null && !SUMMARIES.has(r[key])) {
      throw Errors.invalidRequest(`field 'reasoning.${key}' must be one of auto, concise, detailed`);
    }
  }
  return r.effort;
}

const STREAM_OPTIONS: ReadonlySet<string> = new Set(['include_obfuscation']);

/**
 * `stream_options` holds only `include_obfuscation`, random padding against a side channel: the
 * gateway's events carry none either way, which changes nothing a client reads.
 */
export const streamOptions: FieldRule = (value, _target, model) =>
  checkMembers(value as JsonObject, 'stream_options', STREAM_OPTIONS, model);

/**
 * What `include` may ask: the sealed reasoning (`reasoning.encrypted_content`), which a client that keeps
 * no store on the server (Codex, `store: false`) asks for to send the reasoning back in its next turn.
 * It is written where the upstream seals its reasoning, and left out where it does not (chat), as the API
 * leaves it out of a reasoning item it has nothing sealed for. Every other entry asks for data only
 * OpenAI's own tools and storage produce (search results, output logprobs), and is refused.
 */
export const INCLUDE_SEALED_REASONING = 'reasoning.encrypted_content';

export const include: FieldRule = (value, _target, model) => {
  (value as readonly string[]).forEach((entry, i) => {
    if (entry !== INCLUDE_SEALED_REASONING) {
      throw Errors.unsupportedField(`include[${i}]`, model, `as ${JSON.stringify(entry)}`);
    }
  });
};

/** Whether a validated Responses body asks for the sealed reasoning. */
export const includesSealedReasoning = (body: JsonObject): boolean =>
  Array.isArray(body.include) && body.include.includes(INCLUDE_SEALED_REASONING);

/** The rules every target shares: the Response's bookkeeping and what nothing here stores or runs. */
export const SHARED_RULES = {
  input: kept,
  instructions: kept,
  stream: send('stream'),
  stream_options: streamOptions,
  // Metadata describes the Response, which repeats it; nothing stores it, so nothing else is asked.
  metadata: kept,
  // Logprobs would need the upstream's logprobs mapped into every text event: not offered.
  top_logprobs: only('top_logprobs', 0),
  include,
  // Nothing stores responses; absent, the API's default (true) is not a request to store anything.
  store: only('store', false),
  background: only('background', false),
  // The upstreams fail a request over the context window: `auto` (drop the oldest input) cannot be honoured.
  truncation: only('truncation', 'disabled'),
} as const satisfies FieldRules;

/** The field check of a translator's table: the Responses fields it takes; the API's others are refused. */
export const fieldsOf = (rules: FieldRules): FamilyFields =>
  responsesFields({ accepts: Object.keys(rules) as ResponsesField[] });

/** Members read apart from the field rules: the model routes the request (and is the target body's). */
const ROUTING = 'model';

/**
 * Validates a Responses `body` sent to `model` against the API's rules and a translator's `rules`
 * (checked as `fields`), then adds what each field asks to `target`; throws the 400 naming a field.
 */
export function translateFields(
  body: JsonObject,
  rules: FieldRules,
  fields: FamilyFields,
  model: ModelSpec,
  target: () => JsonObject,
): JsonObject {
  validateResponsesRequest(body, fields, model);
  const out = target();
  for (const [field, value] of Object.entries(body)) {
    if (value == null || field === ROUTING) continue;
    const rule = Object.hasOwn(rules, field) ? rules[field as ResponsesField] : undefined;
    // A field outside the table, the API's or any other, has no counterpart in the target.
    if (!rule) throw Errors.unsupportedField(field, model.id);
    rule(value, out, model.id);
  }
  return out;
}
