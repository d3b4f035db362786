/**
 * Failed authentications per client address, counted in a fixed window in this instance's memory (not
 * shared over Redis: a guard against floods, not an exact quota; with N instances behind a balancer an
 * address gets at most N times the limit). An address over the limit is refused every request until its
 * window ends, a correct key included: a client guessing keys must not learn when it guessed right.
 */
import { LRUCache } from 'lru-cache';

interface Window {
  failures: number;
  readonly endsAt: number;
}

/** Addresses tracked at once; beyond it the least recent are forgotten (a bound on memory under a spread attack). */
const MAX_ADDRESSES = 100_000;

export class FailedAuthLimit {
  private readonly windows: LRUCache<string, Window>;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {
    this.windows = new LRUCache<string, Window>({ max: MAX_ADDRESSES, ttl: windowMs });
  }

  /** Seconds until `address` may try again, or undefined when it may now. */
  blockedFor(address: string, now = Date.now()): number | undefined {
    const window = this.windows.get(address);
    if (!window || window.failures < this.limit || window.endsAt <= now) return undefined;
    return Math.max(1, Math.ceil((window.endsAt - now) / 1000));
  }

  failed(address: string, now = Date.now()): void {
    if (this.limit === 0) return;
    const window = this.windows.get(address);
    if (window && window.endsAt > now) window.failures++;
    else this.windows.set(address, { failures: 1, endsAt: now + this.windowMs });
  }
}
