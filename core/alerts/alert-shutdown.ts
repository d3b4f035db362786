/**
 * The alerts' side of a graceful stop: deliveries under way go on (retries included) until the grace
 * period's deadline, a retry due after it is given up at once, and at the deadline whatever still runs
 * is aborted (a request in flight, a wait for the next attempt). Waits run on `timers`: the process's
 * own, or a test's clock, so that a test of back-off moves time instead of sleeping through it.
 */

/** The timers the alerts wait on (a @sinonjs/fake-timers clock has the same two). */
export interface AlertTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

const PROCESS_TIMERS: AlertTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
};

export class AlertShutdown {
  private readonly aborted = new AbortController();
  private deadline: number | undefined;
  private timer: unknown;

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly timers: AlertTimers = PROCESS_TIMERS,
  ) {}

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
    this.timer = this.timers.setTimeout(() => this.aborted.abort(), Math.max(0, deadline - this.clock()));
  }

  /** The stop is over: nothing is left to abort. */
  end(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
  }

  /** Whether a wait of `ms` ends before the deadline (always, while not stopping). */
  allows(ms: number): boolean {
    return this.deadline === undefined || this.clock() + ms < this.deadline;
  }

  /** Waits `ms`; false when the deadline cut the wait short. */
  wait(ms: number): Promise<boolean> {
    const signal = this.signal;
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const cut = (): void => {
        this.timers.clearTimeout(timer);
        resolve(false);
      };
      const timer = this.timers.setTimeout(() => {
        signal.removeEventListener('abort', cut);
        resolve(true);
      }, ms);
      signal.addEventListener('abort', cut, { once: true });
    });
  }
}
