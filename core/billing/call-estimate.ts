/**
 * What a call may cost before it is made, to hold against budgets: its prompt estimated from the body
 * (a token per 4 bytes) at the input price, plus its output ceiling (`max_completion_tokens`,
 * `max_tokens` or `max_output_tokens`, else the model's `max_output_tokens` limit, else
 * `defaultOutputTokens`) at the output price; an image call, `n` images (default 1) at the price of its
 * size and quality. 0 for a model without a price.
 */
import type { JsonObject } from '../base/json';
import type { ModelSpec } from '../contracts/api';
import { estimateTokens, imageOptions } from '../contracts/usage';
import type { Pricing } from './pricing';

/** A positive whole number from the body, else undefined. */
const positive = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;

export function callEstimate(
  pricing: Pricing,
  spec: ModelSpec,
  body: JsonObject,
  bodyBytes: number,
  defaultOutputTokens: number,
): number {
  const output =
    positive(body.max_completion_tokens) ??
    positive(body.max_tokens) ??
    positive(body.max_output_tokens) ??
    spec.limits?.max_output_tokens ??
    defaultOutputTokens;
  const isImages = spec.api.id === 'images';
  const cost = pricing.callCost(spec.id, {
    promptTokens: estimateTokens(bodyBytes),
    completionTokens: output,
    ...(isImages ? { images: positive(body.n) ?? 1, ...imageOptions(body) } : {}),
    estimated: true,
  });
  return cost ?? 0;
}
