/** A family's task traffic, as `GET /_sim/tasks/stats` returns it. */
export interface PollStats {
  /** Tasks created (refused submits are not counted). */
  readonly submitted: number;
  /** Task GETs received, unknown ids included. */
  readonly polls: number;
  /** Polls whose answer has not finished yet. */
  readonly in_flight: number;
  /** The most polls in flight at once. */
  readonly max_concurrent_polls: number;
  /** The most polls that arrived within any one-second window. */
  readonly max_polls_per_second: number;
}

const WINDOW_MS = 1000;
// Arrivals older than the window are dropped from the front; the array is compacted now and then.
const COMPACT_AFTER = 1024;

/**
 * Counts one family's polls and their high-water marks, which tests use to prove a poller stays
 * under its concurrency and rate caps. The rate is exact: every arrival is checked against the
 * arrivals of the second before it, so no fixed window boundary can hide a burst.
 */
export class PollMeter {
  private submitted = 0;
  private polls = 0;
  private inFlight = 0;
  private maxConcurrent = 0;
  private maxPerSecond = 0;
  private readonly arrivals: number[] = [];
  private head = 0;

  /** Counts a created task. */
  submit(): void {
    this.submitted++;
  }

  /** Counts a poll arriving at epoch-ms `now`; call {@link end} once its answer is over. */
  begin(now: number): void {
    this.polls++;
    this.inFlight++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.inFlight);
    this.arrive(now);
  }

  /** A poll begun earlier finished (answered, failed or abandoned). */
  end(): void {
    this.inFlight--;
  }

  view(): PollStats {
    return {
      submitted: this.submitted,
      polls: this.polls,
      in_flight: this.inFlight,
      max_concurrent_polls: this.maxConcurrent,
      max_polls_per_second: this.maxPerSecond,
    };
  }

  private arrive(now: number): void {
    this.arrivals.push(now);
    while ((this.arrivals[this.head] ?? now) <= now - WINDOW_MS) this.head++;
    this.maxPerSecond = Math.max(this.maxPerSecond, this.arrivals.length - this.head);
    if (this.head > COMPACT_AFTER && this.head * 2 > this.arrivals.length) {
      this.arrivals.splice(0, this.head);
      this.head = 0;
    }
  }
}
