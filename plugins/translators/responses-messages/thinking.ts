/**
 * `reasoning.effort` as messages' extended thinking (`thinking: {type: 'enabled', budget_tokens}`): a
 * budget of thinking tokens per effort. Messages takes no budget below 1024 and none at or above
 * `max_tokens`, so the budget is kept below the request's `max_tokens`, and an effort that leaves less
 * than the minimum is refused, naming it. `none` asks for no thinking, which is messages' default.
 */
import { Errors } from '../../../core/kit/plugin';
import type { JsonObject } from '../../../core/kit/json';

/**
 * Effort → thinking budget in tokens. Doubling steps from the vendor's minimum: `medium` is near the
 * budget the vendor's own examples use (10,000), `xhigh` leaves room under the smallest output ceiling
 * of the models (64,000).
 */
const BUDGETS: Readonly<Record<string, number | null>> = {
  none: null,
  minimal: 1024,
  low: 4096,
  medium: 8192,
  high: 16_384,
  xhigh: 32_768,
};

/** Messages' least budget. */
const MIN_BUDGET = 1024;

/** The `thinking` field for `effort` under `maxTokens`, or undefined for no thinking. */
export function thinkingFor(effort: unknown, maxTokens: number, model: string): JsonObject | undefined {
  const budget = typeof effort === 'string' && Object.hasOwn(BUDGETS, effort) ? BUDGETS[effort] : undefined;
  if (budget === undefined) {
    throw Errors.unsupportedField('reasoning.effort', model, `as ${JSON.stringify(effort)}`);
  }
  if (budget === null) return undefined;
  const kept = Math.min(budget, maxTokens - 1);
  if (kept < MIN_BUDGET) {
    throw Errors.invalidRequest(
      `field 'reasoning.effort' needs 'max_output_tokens' above ${MIN_BUDGET} (thinking takes at least ${MIN_BUDGET} tokens)`,
    );
  }
  return { type: 'enabled', budget_tokens: kept };
}
