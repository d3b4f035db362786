/**
 * Retries and outlier ejection for the whole gateway: one object, built once by the composition root
 * and kept for the process's life, so failure counts and ejections survive a change of routing
 * (`configure` takes new options). It logs every retry, ejection and return, shares ejections over
 * Redis when there is one, and counts retries per upstream for operators.
 */
import type { Logger } from 'pino';
import type { ResilienceConfig } from '../../config/schema';
import { failureFields, failureReason, type UpstreamFailure } from '../observability/upstream-failures';
import type { RedisLink } from '../redis/redis-link';
import { RetryBudget } from './retry-budget';
import { SharedEjections } from './shared-ejections';
import { UpstreamHealth, type Ejection, type HealthListener, type HealthView } from './upstream-health';
import { token } from '../base/token';

/** Retries counted per upstream: away from it (it failed) and to it (it was the second try). */
interface RetryCounts {
  from: number;
  to: number;
}

/** Told of what Resilience sees, for the metrics (GatewayMetrics implements it). */
export interface ResilienceObserver {
  upstreamFailed(upstream: string, reason: string): void;
  retried(from: string, to: string): void;
  retryRefused(upstream: string): void;
  ejected(upstream: string): void;
}

/** An upstream as GET /admin/upstreams shows it. */
export type UpstreamStatus = HealthView & { readonly retries_from: number; readonly retries_to: number };

export class Resilience implements HealthListener {
  readonly health: UpstreamHealth;
  readonly budget: RetryBudget;
  private readonly retries = new Map<string, RetryCounts>();
  private readonly shared: SharedEjections | undefined;

  constructor(
    options: ResilienceConfig,
    private readonly logger: Logger,
    redis?: { link: RedisLink; instance: string },
    private readonly observer?: ResilienceObserver,
  ) {
    this.health = new UpstreamHealth(ejectionOptions(options), this);
    this.budget = new RetryBudget(options.retry_budget);
    this.shared =
      redis && new SharedEjections(redis.link, redis.instance, logger, (e) => this.applyShared(e));
  }

  /** New options (a reload): counts and ejections under way are kept. */
  configure(options: ResilienceConfig): void {
    this.health.configure(ejectionOptions(options));
    this.budget.configure(options.retry_budget);
  }

  /** Starts sharing ejections, reading those already running for `upstreams`. */
  start(upstreams: readonly string[]): Promise<void> {
    return this.shared?.start(upstreams) ?? Promise.resolve();
  }

  stop(): void {
    this.shared?.stop();
  }

  /**
   * An attempt failed before anything reached the client: counted against the upstream's health, and
   * logged once, here, with its cause (a retry or the answer the client gets is logged apart, without it).
   */
  failed(requestId: string, upstream: string, failure: UpstreamFailure): void {
    this.health.failure(upstream, Date.now());
    const reason = failureReason(failure);
    this.observer?.upstreamFailed(upstream, reason);
    this.logger.warn(
      { request_id: requestId, upstream, reason, ...failureFields(failure) },
      'upstream failed',
    );
  }

  /** A request moves from a failed upstream to another: counted and logged. */
  retried(requestId: string, from: string, to: string, reason: string): void {
    this.counts(from).from++;
    this.counts(to).to++;
    this.observer?.retried(from, to);
    this.logger.info({ request_id: requestId, from, to, reason }, 'upstream failed; request retried');
  }

  /** A failure the budget did not let retry (many are failing at once): delivered as it came. */
  notRetried(requestId: string, from: string, reason: string): void {
    this.observer?.retryRefused(from);
    this.logger.info(
      { request_id: requestId, from, reason },
      'upstream failed; retry budget spent, not retried',
    );
  }

  ejected(ejection: Ejection, failures: number): void {
    const { upstream, until, times } = ejection;
    const ms = until - Date.now();
    this.observer?.ejected(upstream);
    this.logger.warn(
      { upstream, failures, ejected_for_ms: ms, times },
      'upstream ejected: it is left out of routing until it returns',
    );
    this.shared?.publish(ejection);
  }

  returned(upstream: string): void {
    this.logger.info({ upstream }, 'upstream returned to service after ejection');
  }

  /** Every upstream that failed, was ejected or was retried from or to since start. */
  view(): Record<string, UpstreamStatus> {
    const out: Record<string, UpstreamStatus> = {};
    const health = this.health.view(Date.now());
    for (const name of new Set([...health.keys(), ...this.retries.keys()])) {
      const counts = this.retries.get(name);
      out[name] = {
        consecutive_failures: 0,
        ejected_until: null,
        times_ejected: 0,
        ...health.get(name),
        retries_from: counts?.from ?? 0,
        retries_to: counts?.to ?? 0,
      };
    }
    return out;
  }

  private applyShared(ejection: Ejection): void {
    if (!this.health.apply(ejection, Date.now())) return;
    this.logger.warn(
      { upstream: ejection.upstream, ejected_for_ms: ejection.until - Date.now(), times: ejection.times },
      'upstream ejected by another instance: it is left out of routing until it returns',
    );
  }

  private counts(upstream: string): RetryCounts {
    let counts = this.retries.get(upstream);
    if (!counts) this.retries.set(upstream, (counts = { from: 0, to: 0 }));
    return counts;
  }
}

const ejectionOptions = ({ ejection }: ResilienceConfig) => ({
  consecutiveFailures: ejection.consecutive_failures,
  baseMs: ejection.base,
  maxMs: ejection.max,
});

/** Retries and ejection: built once, kept across routing changes. */
export const ResilienceToken = token<Resilience>('Resilience');
