/**
 * The alerts' side of a graceful stop: deliveries under way go on (retries included) until the grace
 * period's deadline, a retry due after it is given up at once, and at the deadline whatever still runs
 * is aborted (a request in flight, a wait for the next attempt).
 */
import { setTimeout as sleep } from 'node:timers/promises';

export class AlertShutdown {
  private readonly aborted = new AbortController();
  private deadline: number | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly clock: () => number = Date.now) {}

  /** Aborted at the deadline: requests and waits listen to it. */
  get signal(): AbortSignal {
    return this.aborted.signal;
  }

  get stopping(): boolean {
    return this.deadline !== undefined;
  }

  /** The stop began; everything still running ends by `deadline` (epoch ms). */
  begin(deadline: number): void {
    this.deadline = deadline;
    this.timer = setTimeout(() => this.aborted.abort(), Math.max(0, deadline - this.clock()));
  }

  /** The stop is over: nothing is left to abort. */
  end(): void {
    clearTimeout(this.timer);
  }

  /** Whether a wait of `ms` ends before the deadline (always, while not stopping). */
  allows(ms: number): boolean {
    return this.deadline === undefined || this.clock() + ms < this.deadline;
  }

  /** Waits `ms`; false when the deadline cut the wait short. */
  async wait(ms: number): Promise<boolean> {
    await sleep(ms, undefined, { signal: this.signal }).catch(() => undefined);
    return !this.signal.aborted;
  }
}
