/**
 * Which limits apply to a request, as a table: the key's (its own fields, else `per_key`, else the
 * stage's defaults), its team's (the team's own fields, counted over all its keys), the routed model's
 * (`per_model`, exact id before patterns; each model id counts on its own) and the upstream's
 * (`per_upstream`). A limit left unset is no rule at all.
 */
import type { LimitKind, LimitRule } from './limiter';
import { type GatewayContext, globMatch } from '../../../core/kit/plugin';

/** Limits of one subject, as gateway.yaml names them. */
export interface Caps {
  readonly rpm?: number | undefined;
  readonly tpm?: number | undefined;
  readonly concurrent?: number | undefined;
}

const KINDS: readonly (readonly [keyof Caps, LimitKind])[] = [
  ['rpm', 'requests'],
  ['tpm', 'tokens'],
  ['concurrent', 'concurrent'],
];

/** Rules of a team's limits have subjects that start so; the 429 says whose limit was reached. */
export const TEAM_SUBJECT = 'team:';

/** The limit a refused request hit, as the 429 names it, by the rule's subject prefix. */
const WHOSE: readonly (readonly [prefix: string, whose: string])[] = [
  ['key:', "this API key's"],
  [TEAM_SUBJECT, "this API key's team's"],
  ['model:', "the model's"],
  ['upstream:', "the upstream's"],
];

export const whoseLimit = (rule: LimitRule): string | undefined =>
  WHOSE.find(([prefix]) => rule.subject.startsWith(prefix))?.[1];

export interface RuleOptions {
  readonly requests_per_minute: number;
  readonly tokens_per_minute?: number | undefined;
  readonly concurrent?: number | undefined;
  readonly per_key: Readonly<Record<string, number>>;
  readonly per_model: Readonly<Record<string, Caps>>;
  readonly per_upstream: Readonly<Record<string, Caps>>;
}

export class RuleTable {
  /** Model id → its caps (or none), worked out once per model. */
  private readonly modelCaps = new Map<string, Caps | undefined>();

  constructor(private readonly options: RuleOptions) {}

  rulesFor(ctx: GatewayContext): LimitRule[] {
    const rules: LimitRule[] = [];
    const key = ctx.key;
    // Without auth in the pipeline, the client address is the subject.
    const subject = key?.id ?? ctx.clientAddress;
    add(rules, `key:${subject}`, {
      rpm: key?.rate_limit_rpm ?? this.options.per_key[subject] ?? this.options.requests_per_minute,
      tpm: key?.rate_limit_tpm ?? this.options.tokens_per_minute,
      concurrent: key?.max_concurrent ?? this.options.concurrent,
    });
    const team = ctx.team;
    if (team) {
      add(rules, `${TEAM_SUBJECT}${team.id}`, {
        rpm: team.rate_limit_rpm,
        tpm: team.rate_limit_tpm,
        concurrent: team.max_concurrent,
      });
    }
    const target = ctx.target;
    if (target) {
      add(rules, `model:${target.spec.id}`, this.capsOfModel(target.spec.id));
      add(rules, `upstream:${target.upstream.name}`, this.options.per_upstream[target.upstream.name]);
    }
    return rules;
  }

  private capsOfModel(model: string): Caps | undefined {
    if (!this.modelCaps.has(model)) {
      const table = this.options.per_model;
      const caps = table[model] ?? Object.entries(table).find(([p]) => globMatch(p, model))?.[1];
      this.modelCaps.set(model, caps);
    }
    return this.modelCaps.get(model);
  }
}

function add(rules: LimitRule[], subject: string, caps: Caps | undefined): void {
  if (!caps) return;
  for (const [field, kind] of KINDS) {
    const limit = caps[field];
    if (limit !== undefined) rules.push({ subject, kind, limit });
  }
}
