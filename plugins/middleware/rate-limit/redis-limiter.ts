/**
 * The shared limiter: every decision is one script on Redis (see redis-scripts.ts), so all instances
 * count in the same windows. Failures are thrown, never retried: the caller falls back to its local
 * limiter (fallback-limiter.ts). Concurrency leases of calls still running are renewed together, one
 * script every third of the lease, so a long stream keeps its slot and a dead instance's slots lapse.
 */
import { admissionId, bind, CONCURRENT_RETRY_MS } from './admission';
import type { Admission, Decision, Limiter, LimiterTiming, LimitKind, LimitRule, Quota } from './limiter';
import { ADMIT, RENEW, SETTLE } from './redis-scripts';
import { LeaseRenewer } from '../../../lib/lease-renewer';
import { type RedisLink, RedisScript } from '../../../core/kit/tokens';

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
  /** Concurrency leases of the admissions in flight, by admission id (the id is the member). */
  private readonly leases: LeaseRenewer;

  constructor(
    private readonly redis: RedisLink,
    private readonly timing: LimiterTiming,
  ) {
    this.leases = new LeaseRenewer(timing.leaseMs, ({ keys, args }) =>
      this.redis.up ? renewScript.run(this.redis.client, keys, args) : Promise.resolve(),
    );
  }

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
    if (leaseSets.length > 0) this.leases.hold(id, { member: id, sets: leaseSets });
    return { admitted: true, admission: { id, rules }, quota: standings(rules, answer, 1) };
  }

  /** Throws when Redis fails: the caller decides what to do with the tokens. */
  async settle(admission: Admission, tokens: number): Promise<void> {
    this.leases.release(admission.id);
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
}
