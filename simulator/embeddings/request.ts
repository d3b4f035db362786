import { isRecord } from '../is-record';
import { SimErrors } from '../sim-error';
import type { EmbeddingsDialect, SimEmbeddingModel } from './dialect';

/** The fields of an embeddings request the simulator acts on. */
export interface EmbeddingsRequest {
  readonly model: string;
  /** Each input: text, or token ids. */
  readonly inputs: readonly (string | readonly number[])[];
  readonly dimensions: number;
  readonly base64: boolean;
}

const isTokens = (v: unknown): v is number[] =>
  Array.isArray(v) && v.length > 0 && v.every((t) => Number.isInteger(t) && (t as number) >= 0);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** `input` as a list, in the forms the vendor takes; a 400 naming `input` otherwise. */
function readInputs(d: EmbeddingsDialect, input: unknown): (string | readonly number[])[] {
  const one = (v: unknown): v is string | number[] => isText(v) || (d.takesTokens && isTokens(v));
  let inputs: (string | readonly number[])[] | undefined;
  if (isText(input) || (d.takesTokens && isTokens(input))) inputs = [input];
  else if (Array.isArray(input) && input.length > 0 && input.every(one)) inputs = input;
  const forms = d.takesTokens
    ? 'a string, an array of strings or token arrays'
    : 'a string or array of strings';
  if (!inputs) throw SimErrors.invalidParam('input', `Invalid 'input': expected ${forms}.`, d.invalidCode);
  if (inputs.length > d.maxInputs) {
    const why = `Invalid 'input': at most ${d.maxInputs} inputs a request, got ${inputs.length}.`;
    throw SimErrors.invalidParam('input', why, d.invalidCode);
  }
  return inputs;
}

function readDimensions(d: EmbeddingsDialect, model: SimEmbeddingModel, value: unknown): number {
  if (value == null) return model.defaultDimensions;
  const rule = model.dimensions;
  const ok =
    typeof value === 'number' &&
    ('oneOf' in rule
      ? rule.oneOf.includes(value)
      : Number.isInteger(value) && value >= rule.from && value <= rule.to);
  if (ok) return value;
  throw SimErrors.invalidParam(
    'dimensions',
    `Invalid 'dimensions': ${JSON.stringify(value)}.`,
    d.invalidCode,
  );
}

function readBase64(d: EmbeddingsDialect, value: unknown): boolean {
  if (value == null || value === 'float') return false;
  if (value === 'base64' && d.base64) return true;
  const why = d.base64 ? "expected 'float' or 'base64'" : "only 'float' is supported";
  throw SimErrors.invalidParam('encoding_format', `Invalid 'encoding_format': ${why}.`, d.invalidCode);
}

/**
 * Validates an embeddings body the way the vendor does at the front door: its models, its input forms and
 * count, its vector sizes and encodings. Fields it does not act on (`user`) are accepted and ignored.
 * @throws SimError 400 naming the field at fault (404 for a model it has not).
 */
export function parseEmbeddingsRequest(d: EmbeddingsDialect, body: unknown): EmbeddingsRequest {
  if (!isRecord(body)) throw SimErrors.invalidParam('body', 'The request body must be a JSON object.');
  if (typeof body.model !== 'string' || body.model === '') throw SimErrors.missingParam('model');
  const model = d.models[body.model];
  if (!model) throw SimErrors.status(404);
  if (body.input == null) throw SimErrors.missingParam('input');
  return {
    model: body.model,
    inputs: readInputs(d, body.input),
    dimensions: readDimensions(d, model, body.dimensions),
    base64: readBase64(d, body.encoding_format),
  };
}
