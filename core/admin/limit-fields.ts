/**
 * The body fields keys and teams share (key-routes.ts, team-routes.ts): the models allowed, the limits
 * and the budget, with what each must be as error messages say it.
 */
import { z } from 'zod';

export const allowedModels = z.array(z.string().min(1));
export const positiveInt = z.number().int().positive();
export const budget = z
  .object({
    amount_micros: z.number().int().nonnegative(),
    period: z.enum(['total', 'month']),
  })
  .strict();

export const LIMIT_EXPECTED: Readonly<Record<string, string>> = {
  allowed_models: 'an array of non-empty model names',
  'allowed_models.*': 'a non-empty model name',
  rate_limit_rpm: 'a positive integer (requests per minute)',
  rate_limit_tpm: 'a positive integer (tokens per minute)',
  max_concurrent: 'a positive integer (requests in flight at once)',
  budget: 'an object {amount_micros, period}',
  'budget.amount_micros': 'a non-negative integer (millionths of the currency unit)',
  'budget.period': "'total' or 'month'",
};

/** Limits a PATCH may clear with null. */
export const CLEARABLE_LIMITS = ['rate_limit_rpm', 'rate_limit_tpm', 'max_concurrent', 'budget'] as const;
