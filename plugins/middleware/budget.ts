/**
 * Budgets of API keys (KeyRecord.budget) and of their teams (TeamRecord.budget). A call starts only
 * while every budget it falls under — its key's and its team's — has room: the subject's spend in its
 * period (the cost of its usage records) plus the estimated cost held for its calls under way is below
 * the amount; otherwise 429 `budget_exhausted` naming whose budget is spent, before anything goes
 * upstream. A key with no budget and no budgeted team costs two property checks. Must come after `auth`
 * and `model-router` (it prices the routed model), and before `usage-metering`, whose finish records the
 * real cost just before this stage's finish releases the hold.
 *
 * The hold of a text call is its prompt estimated from the body (a token per 4 bytes) at the input price
 * plus its output ceiling — `max_completion_tokens` or `max_tokens`, else the model's `max_output_tokens`
 * limit, else `default_output_tokens` — at the output price; of an image call, `n` images (default 1) at
 * the price of its `size` and `quality`; of a video submit, the most its task can cost (the duration
 * and resolution asked, else the model's ceilings: TaskUpstream.estimate), held from the moment the task
 * is stored until it is billed or ends unbilled, however long it runs. `fixed_hold_micros` replaces the
 * estimate. A model without a price holds nothing (its cost is unknown and counts nothing).
 *
 * The counts are the budget ledger's (core/billing/budget-ledger.ts): exact across instances on Redis,
 * one instance's own in memory without it.
 * @example - budget: { default_output_tokens: 4096 }
 */
import { inject } from 'tsyringe';
import { z } from 'zod';
import { definePlugin, type GatewayContext, StateKey, traced } from '../../core/kit/plugin';
import type { JsonObject } from '../../core/kit/json';
import {
  type BudgetHold,
  budgetRefusal,
  budgetSubjectsOf,
  type BudgetSubject,
  callEstimate,
  type Middleware,
  type Next,
  TASK_STORED,
} from '../../core/kit/stage';
import { type BudgetLedger, BudgetLedgerToken, type Pricing, PricingToken } from '../../core/kit/tokens';

export const budgetOptions = z
  .object({
    /** Output tokens held for a call that names no ceiling, on a model without a `max_output_tokens` limit. */
    default_output_tokens: z.number().int().positive().default(4096),
    /** Hold this many micro-units per call instead of an estimate. */
    fixed_hold_micros: z.number().int().nonnegative().optional(),
  })
  .strict();
type BudgetOptions = z.output<typeof budgetOptions>;

interface Held {
  readonly hold: BudgetHold;
  /** The video task the hold moved to: it is released when the task ends, not with this call. */
  task?: string;
}
const HELD = new StateKey<Held>('budget', 'held');

@definePlugin({
  kind: 'middleware',
  name: 'budget',
  options: budgetOptions,
  requires: {
    auth: 'budgets belong to API keys and their teams',
    'model-router': 'a call is priced by its routed model',
  },
})
export class BudgetMiddleware implements Middleware {
  constructor(
    private readonly options: BudgetOptions,
    @inject(BudgetLedgerToken) private readonly ledger: BudgetLedger,
    @inject(PricingToken) private readonly pricing: Pricing,
  ) {}

  handle(ctx: GatewayContext, next: Next): Promise<void> {
    // No budget, or nothing billable (the model list).
    if ((!ctx.key?.budget && !ctx.team?.budget) || !ctx.target) return next();
    return this.admit(ctx, budgetSubjectsOf(ctx.key, ctx.team), next);
  }

  finish(ctx: GatewayContext): void {
    const held = ctx.get(HELD);
    if (held && held.task === undefined) void this.ledger.release(held.hold);
  }

  private async admit(ctx: GatewayContext, subjects: readonly BudgetSubject[], next: Next): Promise<void> {
    const estimate = await this.estimate(ctx);
    const admission = await traced(ctx, 'budget hold', () => this.ledger.admit(subjects, estimate));
    if (!admission.admitted) throw budgetRefusal(admission.subject);
    const hold = admission.hold;
    if (hold) {
      const held: Held = { hold };
      ctx.set(HELD, held);
      ctx.set(TASK_STORED, (taskId) => {
        held.task = taskId;
        void this.ledger.holdTask(taskId, hold);
      });
    }
    return next();
  }

  /** The cost held while the call runs, in micro-units. */
  private async estimate(ctx: GatewayContext): Promise<number> {
    if (this.options.fixed_hold_micros !== undefined) return this.options.fixed_hold_micros;
    const target = ctx.target!;
    const body: JsonObject = await ctx.json();
    const tasks = target.upstream.plugin.tasks;
    if (target.spec.api.kind === 'task' && tasks) {
      const params = tasks.check(body, target.spec); // a bad body is refused here as it would be at submit
      return this.pricing.taskCost(target.spec.id, params, tasks.estimate(params, target.spec)) ?? 0;
    }
    const raw = await ctx.rawBody();
    return callEstimate(this.pricing, target.spec, body, raw.length, this.options.default_output_tokens);
  }
}
