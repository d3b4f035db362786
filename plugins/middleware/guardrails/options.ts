/**
 * The guardrails stage's options, as gateway.yaml gives them. Every problem a rule can have is found here,
 * at load and at reload, and names the rule: a reload with one keeps the running configuration.
 */
import { z } from 'zod';
import { duration, guardrailName as name, size, urlProblem } from '../../../core/kit/plugin';
import { DETECTORS, type DetectorName } from './finders/detectors';
import { patternProblem } from './finders/open-match';

/** Which side of the call a rule reads: the client's request, the answer, or both. */
const phase = z.enum(['request', 'response', 'both']);
/** Model ids or `*` patterns the rule or webhook is narrowed to; absent: every model. */
const models = z.array(z.string().min(1)).min(1).optional();
/** Applied only to calls whose key or team lists its name (KeyRecord.guardrails). */
const optIn = z.boolean().default(false);
const detectorNames = Object.keys(DETECTORS) as [DetectorName, ...DetectorName[]];

const rule = z
  .object({
    name,
    on: phase.default('both'),
    /** A regular expression, JavaScript's syntax; `flags` from `imsuv`. */
    pattern: z.string().min(1).optional(),
    flags: z
      .string()
      .regex(/^(?!.*(.).*\1)[imsuv]*$/, 'must be distinct letters of i, m, s, u, v')
      .default(''),
    pii: z.array(z.string()).min(1).optional(),
    action: z.enum(['block', 'mask', 'log']),
    /** What a masked match of `pattern` becomes (a detector has its own, `[EMAIL]`). */
    placeholder: z.string().min(1).max(64).default('[REDACTED]'),
    models,
    opt_in: optIn,
  })
  .strict()
  .superRefine((r, ctx) => {
    const problem = ruleProblem(r);
    if (problem) ctx.addIssue({ code: 'custom', message: `rule '${r.name}': ${problem}` });
  })
  .transform((r) => ({ ...r, pii: r.pii as DetectorName[] | undefined }));

function ruleProblem(r: { pattern?: string; flags: string; pii?: readonly string[] }): string | undefined {
  if ((r.pattern === undefined) === (r.pii === undefined)) return 'give either `pattern` or `pii`';
  if (r.pattern !== undefined) return patternProblem(r.pattern, r.flags);
  const unknown = r.pii!.filter((d) => !(d in DETECTORS));
  if (unknown.length)
    return `unknown pii detector ${unknown.map((d) => `'${d}'`).join(', ')}; known: ${detectorNames.join(', ')}`;
  return undefined;
}

const webhook = z
  .object({
    name,
    url: z.string(),
    on: phase.default('request'),
    timeout: duration.refine((ms) => ms > 0 && ms <= 60_000, 'must be between 1ms and 60s').default(2_000),
    /** `allow`: a failed or late check lets the call through (counted); `block`: 503 guardrail_unavailable. */
    on_error: z.enum(['allow', 'block']).default('allow'),
    headers: z.record(z.string(), z.string()).default({}),
    models,
    opt_in: optIn,
  })
  .strict()
  .superRefine((w, ctx) => {
    const problem = urlProblem(w.url);
    if (problem) ctx.addIssue({ code: 'custom', message: `webhook '${w.name}': url ${problem}` });
  });

export const guardrailsOptions = z
  .object({
    rules: z.array(rule).default([]),
    webhooks: z.array(webhook).default([]),
    /**
     * The most text a stream holds back for a pattern whose matches have no length bound (`\S+`): beyond
     * it the oldest held text goes out, and a match longer than this may be caught only in part.
     */
    stream_hold: size.refine((n) => n >= 16 && n <= 65_536, 'must be between 16 and 65536').default(1_024),
  })
  .strict()
  .superRefine((o, ctx) => {
    const seen = new Set<string>();
    for (const { name } of [...o.rules, ...o.webhooks]) {
      if (seen.has(name))
        ctx.addIssue({ code: 'custom', message: `the name '${name}' is given to two rules or webhooks` });
      seen.add(name);
    }
  });

export type GuardrailsOptions = z.output<typeof guardrailsOptions>;
export type RuleOptions = GuardrailsOptions['rules'][number];
export type WebhookOptions = GuardrailsOptions['webhooks'][number];
export type Phase = 'request' | 'response';
