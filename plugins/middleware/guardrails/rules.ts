/** The rules as the stage runs them: each with its finders compiled once, and which calls it applies to. */
import { type GatewayContext, globMatcher } from '../../../core/kit/plugin';
import { detectorMatcher } from './finders/detectors';
import type { Matcher } from './finders/matcher';
import type { GuardrailsOptions, Phase, RuleOptions, WebhookOptions } from './options';
import { patternMatcher } from './finders/pattern-matcher';

export interface Rule {
  readonly name: string;
  readonly action: RuleOptions['action'];
  readonly matchers: readonly Matcher[];
}

/** What narrows a rule or a webhook to some calls. */
interface Reach {
  readonly phases: readonly Phase[];
  readonly models: ((id: string) => boolean) | undefined;
  readonly optIn: boolean;
}

export type Scoped<T extends { readonly name: string }> = T & { readonly reach: Reach };

const phasesOf = (on: RuleOptions['on']): readonly Phase[] =>
  on === 'both' ? ['request', 'response'] : [on];

function reachOf(o: RuleOptions | WebhookOptions): Reach {
  const globs = o.models?.map(globMatcher);
  return {
    phases: phasesOf(o.on),
    models: globs && ((id) => globs.some((matches) => matches(id))),
    optIn: o.opt_in,
  };
}

function compileRule(o: RuleOptions): Scoped<Rule> {
  const matchers =
    o.pattern !== undefined
      ? [patternMatcher(o.pattern, o.flags, o.placeholder)]
      : o.pii!.map((name) => detectorMatcher(name));
  return { name: o.name, action: o.action, matchers, reach: reachOf(o) };
}

export function compileRules(options: GuardrailsOptions): Scoped<Rule>[] {
  return options.rules.map(compileRule);
}

export function scopeWebhook(o: WebhookOptions): Scoped<WebhookOptions> {
  return { ...o, reach: reachOf(o) };
}

/** The opt-in names a call's key and team list. */
function namesOf(ctx: GatewayContext): ReadonlySet<string> {
  const names = [...(ctx.key?.guardrails ?? []), ...(ctx.team?.guardrails ?? [])];
  return new Set(names);
}

/** The ones of `all` that apply to this call in `phase`, in their order. */
export function applying<T extends { readonly name: string }>(
  all: readonly Scoped<T>[],
  ctx: GatewayContext,
  phase: Phase,
): Scoped<T>[] {
  const model = ctx.target?.spec.id;
  let named: ReadonlySet<string> | undefined;
  return all.filter(({ name, reach }) => {
    if (!reach.phases.includes(phase)) return false;
    if (reach.models && (model === undefined || !reach.models(model))) return false;
    return !reach.optIn || (named ??= namesOf(ctx)).has(name);
  });
}
