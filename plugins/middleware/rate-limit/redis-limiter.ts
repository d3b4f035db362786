/**
 * The shared limiter: every decision is one script on Redis (see redis-scripts.ts), so all instances
 * count in the same windows. Failures are thrown, never retried: the caller falls back to its local
 * limiter (fallback-limiter.ts). Concurrency leases of calls still running are renewed together, one
 * script every third of the lease, so a long stream keeps its slot and a dead instance's slots lapse.
 */
import {
  admissionId,
  bind,
  CONCURRENT_RETRY_MS,
  type Quota,
  type Admission,
  type Decision,
  type Limiter,
  type LimiterTiming,
  type LimitKind,
  type LimitRule,
} from './limiter';
import { ADMIT, RENEW, SETTLE } from './redis-scripts';
import { type RedisLink, RedisScript } from '../../../core/kit';

const CODE: Record<LimitKind, string> = { requests: 'r', tokens: 't', concurrent: 'c' };
const admitScript = new RedisScript(ADMIT);
const settleScript = new RedisScript(SETTLE);
const renewScript = new RedisScript(RENEW);

/** The binding standings from the script's answer, whose pairs (held, ms until empty) start at `from`. */
function standings(rules: readonly LimitRule[], answer: readonly number[], from: number): Quota {
  const quota: Quota = {};
  rules.forEach((rule, i) => {
    const remaining = Math.max(0, rule.limit - (answer[from + 2 * i] ?? 0));
    bind(quota, rule, remaining, Math.max(0, answer[from + 2 * i + 1] ?? 0));
  });
  return quota;
}

export class RedisLimiter implements Limiter {
  /** Lease sets of the admissions in flight, by admission id. */
  private readonly leases = new Map<string, readonly string[]>();
  private renewer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisLink,
    private readonly timing: LimiterTiming,
  ) {}

  async admit(rules: readonly LimitRule[]): Promise<Decision> {
    const id = admissionId();
    const args = [this.timing.windowMs, this.timing.leaseMs, id, CONCURRENT_RETRY_MS];
    for (const rule of rules) args.push(CODE[rule.kind], rule.limit);
    const answer = (await admitScript.run(this.redis.client, this.keys(rules), args)) as number[];
    if (answer[0] !== 1) {
      const [, retryAfterMs, index] = answer as [number, number, number];
      const quota = standings(rules, answer, 3);
      return { admitted: false, retryAfterMs, rule: rules[index - 1]!, quota };
    }
    const leaseSets = rules.filter((r) => r.kind === 'concurrent').map((r) => this.set(r));
    if (leaseSets.length > 0) this.hold(id, leaseSets);
    return { admitted: true, admission: { id, rules }, quota: standings(rules, answer, 1) };
  }

  /** Throws when Redis fails: the caller decides what to do with the tokens. */
  async settle(admission: Admission, tokens: number): Promise<void> {
    this.release(admission.id);
    const settled = admission.rules.filter(
      (r) => r.kind === 'concurrent' || (r.kind === 'tokens' && tokens > 0),
    );
    if (settled.length === 0) return;
    const args = [this.timing.windowMs, admission.id, tokens, ...settled.map((r) => CODE[r.kind])];
    await settleScript.run(this.redis.client, this.keys(settled), args);
  }

  private keys(rules: readonly LimitRule[]): string[] {
    return rules.flatMap((r) => [this.set(r), this.set(r) + ':sum']);
  }

  private set(rule: LimitRule): string {
    return this.redis.name(`rl:${rule.subject}:${CODE[rule.kind]}`);
  }

  /** The renewal timer runs only while some call holds a lease. */
  private hold(id: string, sets: readonly string[]): void {
    this.leases.set(id, sets);
    if (this.renewer) return;
    this.renewer = setInterval(() => void this.renew(), Math.max(1, this.timing.leaseMs / 3));
    this.renewer.unref();
  }

  private release(id: string): void {
    if (!this.leases.delete(id) || this.leases.size > 0) return;
    clearInterval(this.renewer);
    this.renewer = undefined;
  }

  private async renew(): Promise<void> {
    if (!this.redis.up) return;
    const keys: string[] = [];
    const args: (string | number)[] = [this.timing.leaseMs];
    for (const [id, sets] of this.leases)
      for (const set of sets) {
        keys.push(set);
        args.push(id);
      }
    // A failed renewal is not retried: the next one comes a third of a lease later.
    await renewScript.run(this.redis.client, keys, args).catch(() => undefined);
  }
}
