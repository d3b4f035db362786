/**
 * The in-process limiter: sliding-window logs per subject in an lru-cache (memory stays bounded however
 * many keys call). Also the local fallback of the Redis limiter. Its concurrency slots need no lease
 * expiry: they live and die with this process.
 */
import { LRUCache } from 'lru-cache';
import { boundedEntries } from '../../../core/kit/plugin';
import { admissionId, bind, CONCURRENT_RETRY_MS } from './admission';
import type { Admission, Decision, Limiter, LimitRule, Quota } from './limiter';

/**
 * Entries of one window, oldest first; `head` skips the pruned ones until the arrays are compacted. What
 * comes in the same millisecond is one entry: it leaves the window at one moment anyway, and a busy key
 * then holds at most an entry a millisecond, not one a request.
 */
class WindowLog {
  private readonly at: number[] = [];
  private readonly amount: number[] = [];
  private head = 0;
  sum = 0;

  add(now: number, amount: number): void {
    const last = this.at.length - 1;
    if (last >= this.head && this.at[last] === now) this.amount[last]! += amount;
    else {
      this.at.push(now);
      this.amount.push(amount);
    }
    this.sum += amount;
  }

  /** Drops what left the window (an entry counts for exactly `windowMs`). */
  prune(now: number, windowMs: number): void {
    while (this.head < this.at.length && this.at[this.head]! <= now - windowMs) {
      this.sum -= this.amount[this.head]!;
      this.head++;
    }
    if (this.head > 1_024 && this.head * 2 > this.at.length) {
      this.at.splice(0, this.head);
      this.amount.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Milliseconds until every entry now in the window has left it (0: none is). */
  untilEmpty(now: number, windowMs: number): number {
    return this.head < this.at.length ? this.at[this.at.length - 1]! + windowMs - now : 0;
  }

  /** Milliseconds until the sum is under `limit` (0: it is now). */
  waitUnder(limit: number, now: number, windowMs: number): number {
    let sum = this.sum;
    for (let i = this.head; sum >= limit && i < this.at.length; i++) {
      sum -= this.amount[i]!;
      if (sum < limit) return this.at[i]! + windowMs - now;
    }
    return sum < limit ? 0 : windowMs;
  }
}

export class MemoryLimiter implements Limiter {
  private readonly logs: LRUCache<string, WindowLog>;
  private readonly slots: LRUCache<string, Set<string>>;

  constructor(
    private readonly windowMs: number,
    private readonly clock: () => number = Date.now,
    maxSubjects = 100_000,
  ) {
    this.logs = new LRUCache(boundedEntries(maxSubjects));
    this.slots = new LRUCache(boundedEntries(maxSubjects));
  }

  admit(rules: readonly LimitRule[]): Decision {
    return this.decide(rules);
  }

  settle(admission: Admission, tokens: number): void {
    const now = this.clock();
    for (const rule of admission.rules) {
      if (rule.kind === 'tokens' && tokens > 0) this.log(rule).add(now, tokens);
      if (rule.kind === 'concurrent') this.slots.get(rule.subject)?.delete(admission.id);
    }
  }

  /** Synchronous from check to count: two calls can not both take the last place. */
  private decide(rules: readonly LimitRule[]): Decision {
    const now = this.clock();
    // Each rule's log or slots, found once for both the check and the count.
    const states = rules.map((rule) => (rule.kind === 'concurrent' ? this.slotsOf(rule) : this.log(rule)));
    let refused: { retryAfterMs: number; rule: LimitRule } | undefined;
    rules.forEach((rule, i) => {
      const wait = this.wait(rule, states[i]!, now);
      if (wait > 0 && (!refused || wait > refused.retryAfterMs)) refused = { retryAfterMs: wait, rule };
    });
    if (refused) return { admitted: false, ...refused, quota: this.quota(rules, states, now) };
    const admission: Admission = { id: admissionId(), rules };
    rules.forEach((rule, i) => {
      const state = states[i]!;
      if (state instanceof Set) state.add(admission.id);
      else if (rule.kind === 'requests') state.add(now, 1);
    });
    return { admitted: true, admission, quota: this.quota(rules, states, now) };
  }

  private quota(
    rules: readonly LimitRule[],
    states: readonly (WindowLog | Set<string>)[],
    now: number,
  ): Quota {
    const quota: Quota = {};
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i]!;
      const state = states[i]!;
      if (state instanceof Set) continue;
      const remaining = Math.max(0, rule.limit - state.sum);
      bind(quota, rule, remaining, state.untilEmpty(now, this.windowMs));
    }
    return quota;
  }

  private wait(rule: LimitRule, state: WindowLog | Set<string>, now: number): number {
    if (state instanceof Set) return state.size < rule.limit ? 0 : CONCURRENT_RETRY_MS;
    state.prune(now, this.windowMs);
    return state.waitUnder(rule.limit, now, this.windowMs);
  }

  private log(rule: LimitRule): WindowLog {
    const name = `${rule.subject}:${rule.kind}`;
    let log = this.logs.get(name);
    if (!log) this.logs.set(name, (log = new WindowLog()));
    return log;
  }

  private slotsOf(rule: LimitRule): Set<string> {
    let set = this.slots.get(rule.subject);
    if (!set) this.slots.set(rule.subject, (set = new Set()));
    return set;
  }
}
