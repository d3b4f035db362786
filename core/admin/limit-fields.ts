/**
 * The body fields keys and teams share (key-routes.ts, team-routes.ts): the models and MCP tools allowed,
 * the limits, the budget and the guardrails opted into, with what each must be as error messages say it.
 */
import { z } from 'zod';
import { GUARDRAIL_NAME_EXPECTED, GUARDRAILS_EXPECTED, guardrailNames } from '../../config/guardrail-names';
import { TOOL_GLOB_EXPECTED, TOOL_GLOBS_EXPECTED, toolGlobs } from '../../config/tool-globs';

export const allowedModels = z.array(z.string().min(1));
export const positiveInt = z.number().int().positive();
/** On creation: an empty list is none, left out of the record. */
export const guardrails = guardrailNames;
/** In a PATCH, an empty list clears the field as null does: the record keeps none as no field at all. */
export const guardrailsChange = guardrailNames
  .transform((names) => (names.length > 0 ? names : null))
  .nullable();
/** On creation: an empty list allows every tool, as no list does, so it is left out of the record. */
export const allowedTools = toolGlobs;
/** In a PATCH, an empty list clears the field as null does (every tool again). */
export const allowedToolsChange = toolGlobs
  .transform((globs) => (globs.length > 0 ? globs : null))
  .nullable();
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
  guardrails: GUARDRAILS_EXPECTED,
  'guardrails.*': GUARDRAIL_NAME_EXPECTED,
  allowed_tools: TOOL_GLOBS_EXPECTED,
  'allowed_tools.*': TOOL_GLOB_EXPECTED,
};

/** Fields a PATCH may clear with null (the limits, the budget, the guardrails and the tools allowed). */
export const CLEARABLE_LIMITS = [
  'rate_limit_rpm',
  'rate_limit_tpm',
  'max_concurrent',
  'budget',
  'guardrails',
  'allowed_tools',
] as const;
