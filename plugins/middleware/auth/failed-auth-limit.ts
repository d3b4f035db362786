/**
 * Failed authentications per client address, counted in a fixed window. Past the limit an address's
 * wrong, unknown and malformed keys are refused with 429 before they cost a store lookup; a correct key
 * is still checked and admitted (plugins/middleware/auth/). Keys are 32 random bytes, so nobody guesses
 * one: refusing a correct key would defend against nothing and lock out whoever shares the address.
 *
 * This one counts in this instance's memory; `SharedFailedAuthLimit` counts on Redis for all instances.
 */
import { LRUCache } from 'lru-cache';
import { boundedEntries } from '../../../core/kit/plugin';

export interface FailedAuthLimit {
  /** Seconds until `address` may present an unchecked key again, or undefined when it may now. */
  blockedFor(address: string, now?: number): number | undefined;
  /**
   * Counts one failure. Resolves to the seconds the address stays blocked when this failure is past the
   * limit (the caller answers 429 instead of 401), else undefined.
   */
  failed(address: string): Promise<number | undefined> | number | undefined;
}

interface Window {
  failures: number;
  endsAt: number;
}

/** Addresses tracked at once; beyond it the least recent are forgotten (a bound on memory under a spread attack). */
const MAX_ADDRESSES = 100_000;

export const secondsUntil = (endsAt: number, now: number): number =>
  Math.max(1, Math.ceil((endsAt - now) / 1000));

/** The wall clock, read when called (a test's fake Date included). */
export const wallClock = (): number => Date.now();

export class LocalFailedAuthLimit implements FailedAuthLimit {
  private readonly windows: LRUCache<string, Window>;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    /**
     * Epoch ms. A window's end and its entry's expiry both read it, so they agree: a window cannot be
     * forgotten before it ends, whatever a clock does meanwhile.
     */
    private readonly clock: () => number = wallClock,
  ) {
    this.windows = new LRUCache<string, Window>({
      ...boundedEntries(MAX_ADDRESSES),
      ttl: windowMs,
      perf: { now: clock },
    });
  }

  blockedFor(address: string, now = this.clock()): number | undefined {
    const window = this.windows.get(address);
    if (!window || window.failures < this.limit || window.endsAt <= now) return undefined;
    return secondsUntil(window.endsAt, now);
  }

  failed(address: string, now = this.clock()): number | undefined {
    if (this.limit === 0) return undefined;
    const window = this.windows.get(address);
    if (window && window.endsAt > now) window.failures++;
    else this.windows.set(address, { failures: 1, endsAt: now + this.windowMs });
    const counted = this.windows.get(address)!;
    return counted.failures > this.limit ? secondsUntil(counted.endsAt, now) : undefined;
  }

  /** Marks `address` as over the limit until `endsAt` (what another instance counted, learnt from Redis). */
  block(address: string, endsAt: number): void {
    this.windows.set(address, { failures: this.limit, endsAt });
  }
}
