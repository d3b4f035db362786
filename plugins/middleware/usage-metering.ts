/**
 * Writes one usage record per routed call, after its last byte: the upstream's token counts (or an
 * estimate from what was delivered, marked so), the status the client saw, latency and request id.
 * Error bodies are never billed: a call the upstream refused carries zero tokens. Records are queued and
 * written in batches by the UsageStore, off the request path. A stage's replayed answer (a cache's hit)
 * is recorded with the counts of the call it repeats, `cache: 'hit'`, no cost, and the price it saved.
 *
 * Its request phase refuses a new billable call (503 `usage_backlog`) while the store cannot take more
 * records, before anything goes upstream: a call that could not be billed is not made. A call already
 * under way is always recorded. It must come after `model-router`, which tells what is billable.
 */
import { performance } from 'node:perf_hooks';
import { inject } from 'tsyringe';
import {
  definePlugin,
  Errors,
  type GatewayContext,
  NO_USAGE,
  recordCounts,
  StateKey,
} from '../../core/kit/plugin';
import {
  type Middleware,
  type Next,
  BATCH_LINE_HEADER,
  BATCH_LINE_SEAL,
  type BatchLineTag,
} from '../../core/kit/stage';
import {
  type Pricing,
  PricingToken,
  type BudgetLedger,
  BudgetLedgerToken,
  type UsageRecord,
  type UsageStore,
  UsageStoreToken,
} from '../../core/kit/tokens';
import { SealerToken, type Sealer } from '../../core/kit/service';

/** Set on a call this stage refused: it was never made, so it leaves no record. */
const REFUSED = new StateKey<true>('usage-metering', 'refused');

let second = -1;
/** `YYYY-MM-DDTHH:MM:SS.` of `second`. */
let secondText = '';
/**
 * The current time in ISO form. `Date#toISOString` formats in C++ at ~7k instructions a call
 * (callgrind), so it runs once per second and each call adds its milliseconds to the second's text.
 */
function isoNow(): string {
  const now = Date.now();
  const s = Math.floor(now / 1000);
  if (s !== second) {
    second = s;
    secondText = new Date(s * 1000).toISOString().slice(0, 20);
  }
  return `${secondText}${String(now - s * 1000).padStart(3, '0')}Z`;
}

@definePlugin({
  kind: 'middleware',
  name: 'usage-metering',
  after: {
    auth: 'a record names the API key',
    'model-router': 'a record names the routed model and upstream',
  },
})
export class UsageMeteringMiddleware implements Middleware {
  constructor(
    @inject(UsageStoreToken) private readonly store: UsageStore,
    @inject(PricingToken) private readonly pricing: Pricing,
    @inject(BudgetLedgerToken) private readonly budgets: BudgetLedger,
    @inject(SealerToken) private readonly sealer: Sealer,
  ) {}

  /** The batch and line a call belongs to, when the gateway itself sent it as a batch's line. */
  private batchLine(ctx: GatewayContext): BatchLineTag | undefined {
    const sealed = ctx.headers[BATCH_LINE_HEADER];
    if (typeof sealed !== 'string') return undefined;
    const tag = this.sealer.open(BATCH_LINE_SEAL, sealed) as Partial<BatchLineTag> | undefined;
    return typeof tag?.batch_id === 'string' && typeof tag.custom_id === 'string'
      ? { batch_id: tag.batch_id, custom_id: tag.custom_id }
      : undefined;
  }

  /** The hot path is one call to `accepting()`; the rest runs only while the store is full. */
  handle(ctx: GatewayContext, next: Next): Promise<void> {
    if (this.store.accepting()) return next();
    // Not routed (the model list) or a video task (billed durably by the poller): nothing to queue.
    if (!ctx.target || ctx.target.spec.api.kind === 'task') return next();
    ctx.set(REFUSED, true);
    const retryAfter = Math.max(1, Math.ceil(this.store.stats().retryInMs / 1000));
    return Promise.reject(Errors.usageBacklog(retryAfter));
  }

  finish(ctx: GatewayContext): void {
    const target = ctx.target;
    if (!target) return; // never routed: nothing was or will be spent
    if (target.spec.api.kind === 'task') return; // billed by the poller when the task succeeds
    if (ctx.get(REFUSED)) return;
    // A stage's own answer is billed only when the stage says what it used.
    if (ctx.answeredBy !== undefined && ctx.usage === undefined) return;
    const usage = ctx.usage ?? NO_USAGE;
    const price = this.pricing.callCost(target.spec.id, usage);
    // A cache's hit (a replayed answer, with the usage of the call it repeats) spent nothing: it saved
    // that call's price.
    const hit = ctx.replayed;
    const line = this.batchLine(ctx);
    // One fixed shape for every record (absent cache and image counts, and a miss's cache and saving,
    // stay undefined and are not serialised).
    const record: UsageRecord = {
      id: ctx.requestId,
      key_id: ctx.key?.id ?? null,
      team_id: ctx.team?.id,
      model: target.spec.id,
      upstream: target.upstream.name,
      // The API the client called, which a translated call's model does not speak.
      endpoint: ctx.endpoint.id,
      status: ctx.status,
      stream: ctx.stream,
      ...recordCounts(usage),
      cost_micros: hit ? 0 : price,
      cache: hit ? 'hit' : undefined,
      saved_micros: hit ? price : undefined,
      guardrail: ctx.guardrails?.map(({ name, action }) => ({ name, action })),
      batch_id: line?.batch_id,
      custom_id: line?.custom_id,
      estimated: usage.estimated,
      outcome: ctx.outcome,
      latency_ms: Math.round(performance.now() - ctx.startedAt),
      created_at: isoNow(),
    };
    this.store.record(record);
    // Budgets count it now, not when the batch is written (a hit, at cost 0, counts nothing).
    void this.budgets.recorded(record, ctx.key?.budget !== undefined || ctx.team?.budget !== undefined);
  }
}
