/**
 * Redis first, this process when Redis cannot answer. A decision goes to Redis while the link is up;
 * when it is down, or a script fails or times out (the link's command timeout), the request is decided
 * at once on a local limiter whose limits are divided by the number of live instances last seen (at
 * least 1 each), so the instances together admit about the shared limit. The failed script is never
 * sent again: it may have run, and running it twice would count the request twice. After a failure on
 * a link that still looks up, Redis is left alone for a moment rather than costing each request a
 * timeout; the first decision after that tries it again.
 */
import type { Logger } from 'pino';
import type { Admission, Decision, Limiter, LimitRule } from './limiter';
import { MemoryLimiter } from './memory-limiter';
import type { RedisLimiter } from './redis-limiter';
import type { LiveInstances, RedisLink } from '../../../core/kit/tokens';

/** How long Redis is skipped after a failed script on a link that still reports itself up. */
const PAUSE_AFTER_FAILURE_MS = 1_000;

export interface FallbackStats {
  /** Decisions taken locally since start. */
  readonly fallbacks: number;
  /** True while Redis is not being used. */
  readonly degraded: boolean;
}

export class FallbackLimiter implements Limiter {
  private readonly local: MemoryLimiter;
  private readonly localAdmissions = new WeakSet<Admission>();
  private fallbacks = 0;
  private degraded = false;
  private pausedUntil = 0;

  constructor(
    private readonly shared: RedisLimiter,
    private readonly redis: RedisLink,
    private readonly live: Pick<LiveInstances, 'last'> | undefined,
    private readonly logger: Logger,
    windowMs: number,
  ) {
    this.local = new MemoryLimiter(windowMs);
  }

  async admit(rules: readonly LimitRule[]): Promise<Decision> {
    if (this.redis.up && Date.now() >= this.pausedUntil) {
      try {
        const decision = await this.shared.admit(rules);
        this.recovered();
        return decision;
      } catch (e) {
        this.pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS;
        this.failed(e instanceof Error ? e.message : String(e));
      }
    } else {
      this.failed('not connected');
    }
    return this.decideLocally(rules);
  }

  async settle(admission: Admission, tokens: number): Promise<void> {
    if (this.localAdmissions.has(admission)) return this.local.settle(admission, tokens);
    // Tokens Redis could not take still count here; a lease not released lapses on its own.
    await this.shared.settle(admission, tokens).catch(() => this.local.settle(admission, tokens));
  }

  stats(): FallbackStats {
    return { fallbacks: this.fallbacks, degraded: this.degraded };
  }

  private decideLocally(rules: readonly LimitRule[]): Decision {
    this.fallbacks++;
    const share = Math.max(1, this.live?.last ?? 1);
    const decision = this.local.admit(
      rules.map((r) => ({ ...r, limit: Math.max(1, Math.floor(r.limit / share)) })),
    );
    if (decision.admitted) this.localAdmissions.add(decision.admission);
    return decision;
  }

  /** Logged once per outage. */
  private failed(reason: string): void {
    if (this.degraded) return;
    this.degraded = true;
    this.logger.warn(
      { err: reason, instances: this.live?.last ?? 1 },
      'rate-limit: redis did not answer; deciding locally at each limit ÷ live instances',
    );
  }

  private recovered(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.logger.info({ fallbacks: this.fallbacks }, 'rate-limit: redis answers again; limits are shared');
  }
}
