/**
 * OpenAI's Embeddings API (`POST /v1/embeddings`): the endpoint, the rules of its fields, and the checks
 * every family's embedding models share. Which fields (and which forms of `input`) a family takes is its
 * own table (EmbeddingFieldTable); the sizes a model's vectors may be asked in, and the tokens an input
 * may hold, are its facts (EmbeddingModelFacts). This file only applies them.
 */
import { z } from 'zod';
import { Errors } from '../../core/kit/plugin';
import type { JsonObject } from '../../core/kit/json';
import type { ModelApi } from '../../core/kit/upstream';
import { inputsOf, tokenArraysOf } from './embedding-input';
import type { CheckedModel } from './checked-model';
import { fieldsCompiler, type ApiFields, type FamilyFields, type FieldTable } from './field-table';
import { jsonOnlyApi } from './json-only-api';

export const EmbeddingsApi: ModelApi = jsonOnlyApi({
  id: 'embeddings',
  path: '/v1/embeddings',
  genAi: { operation: 'embeddings', input: 'input' },
});

const token = z.int().min(0);
const tokens = z.array(token).min(1);

/** The rules of the fields OpenAI's API defines for embeddings; each family says which it takes. */
export const EMBEDDING_FIELD_RULES = {
  input: {
    forms: {
      text: { schema: z.string().min(1), expect: 'a non-empty string', as: 'as a string' },
      texts: {
        schema: z.array(z.string().min(1)).min(1),
        expect: 'a non-empty array of non-empty strings',
        as: 'as an array of strings',
      },
      tokens: { schema: tokens, expect: 'a non-empty array of token ids', as: 'as an array of tokens' },
      token_arrays: {
        schema: z.array(tokens).min(1),
        expect: 'a non-empty array of non-empty token arrays',
        as: 'as an array of token arrays',
      },
    },
  },
  encoding_format: { schema: z.enum(['float', 'base64']), expect: 'one of float, base64' },
  dimensions: { schema: z.int().min(1), expect: 'a positive integer' },
  user: { schema: z.string(), expect: 'a string' },
} as const satisfies ApiFields;

export type EmbeddingField = keyof typeof EMBEDDING_FIELD_RULES;
export type EmbeddingFieldTable = FieldTable<typeof EMBEDDING_FIELD_RULES>;

export const embeddingFields = fieldsCompiler(EMBEDDING_FIELD_RULES);

/**
 * The table of a vendor whose embedding models take text only (a string or strings, not OpenAI's token
 * ids, which mean nothing to another vendor's tokenizer), in sizes and formats the gateway checks.
 */
export const textOnlyEmbeddings = (models: readonly string[]): EmbeddingFieldTable => ({
  accepts: {
    input: { text: models, texts: models },
    encoding_format: models,
    dimensions: models,
  },
});

/** The vector sizes a model may be asked for: a range, or a list (DashScope takes only some sizes). */
export type DimensionRule =
  { readonly from: number; readonly to: number } | { readonly oneOf: readonly number[] };

/** What a vendor documents of one embedding model, beyond the fields it takes. */
export interface EmbeddingModelFacts {
  /** The sizes `dimensions` may ask for; absent where the model takes no `dimensions`. */
  readonly dimensions?: DimensionRule;
  /** Tokens one input may hold; checked where the gateway can count them exactly (token arrays). */
  readonly maxInputTokens: number;
  /** Tokens all inputs of one call may hold together, where the vendor caps them. */
  readonly maxCallTokens?: number;
}

/**
 * Checks an embeddings request against its family's fields and the model's facts and ceilings; throws a
 * 400 naming the field (and the model).
 */
export function validateEmbeddingsRequest(
  body: JsonObject,
  fields: FamilyFields,
  model: CheckedModel,
  facts: EmbeddingModelFacts,
): void {
  const { id } = model;
  if (body.input == null) throw Errors.invalidRequest("field 'input' is required");
  // OpenAI's Embeddings API has no stream; a `stream: true` passed on would be metered as a stream.
  if (body.stream != null) throw Errors.unsupportedField('stream', id);
  fields.require(body, id);
  fields.check(body, id);
  checkInputCount(body.input, id, model.limits?.max_inputs);
  checkDimensions(body.dimensions, facts.dimensions, id);
  checkTokenArrays(body.input, facts, id);
}

function checkInputCount(input: unknown, model: string, ceiling: number | undefined): void {
  const count = inputsOf(input).length;
  if (ceiling !== undefined && count > ceiling) {
    throw Errors.invalidRequest(
      `field 'input' holds ${count} inputs; model '${model}' takes at most ${ceiling} a call`,
    );
  }
}

function checkDimensions(value: unknown, rule: DimensionRule | undefined, model: string): void {
  if (typeof value !== 'number' || !rule) return;
  if ('oneOf' in rule) {
    if (rule.oneOf.includes(value)) return;
    throw Errors.invalidRequest(
      `field 'dimensions' must be one of ${rule.oneOf.join(', ')} for model '${model}'`,
    );
  }
  if (value < rule.from || value > rule.to) {
    throw Errors.invalidRequest(
      `field 'dimensions' must be from ${rule.from} to ${rule.to} for model '${model}'`,
    );
  }
}

/** Token arrays are counted exactly, so the vendor's token ceilings are checked here for them. */
function checkTokenArrays(input: unknown, facts: EmbeddingModelFacts, model: string): void {
  let total = 0;
  for (const [i, one] of tokenArraysOf(input).entries()) {
    if (one.length > facts.maxInputTokens) {
      throw Errors.invalidRequest(
        `field 'input' holds an input of ${one.length} tokens (token array ${i}); ` +
          `model '${model}' takes at most ${facts.maxInputTokens} an input`,
      );
    }
    total += one.length;
  }
  if (facts.maxCallTokens !== undefined && total > facts.maxCallTokens) {
    throw Errors.invalidRequest(
      `field 'input' holds ${total} tokens; model '${model}' takes at most ${facts.maxCallTokens} a call`,
    );
  }
}
