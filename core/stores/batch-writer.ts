/**
 * Queues items and writes them in batches, off the request path: when a batch is full or after a short
 * delay. Writes run one at a time, in order.
 *
 * Nothing queued is ever dropped. A failed write puts its batch back at the head of the queue and is
 * retried after a delay that doubles per failure up to a cap (unref'd timers: a retry never keeps the
 * process alive; `close` is what waits), so `write` must be safe to repeat for a batch it failed on.
 * Because nothing is dropped, the queue is bounded at the door instead: once `maxQueued` items wait,
 * `accepting` is false and the owner refuses new work; items of work already under way are still added.
 * A failure streak is logged once when it starts and once when writes succeed again, not per retry.
 */
import pino, { type Logger } from 'pino';

export interface BatchOptions {
  readonly flushEveryMs: number;
  readonly maxBatch: number;
  /** Items that may wait before `accepting` turns false. */
  readonly maxQueued: number;
  /** The delay before the first retry of a failed write; it doubles per failure up to `retryMaxMs`. */
  readonly retryFirstMs: number;
  readonly retryMaxMs: number;
}

export interface BatchStats {
  /** Items added and not yet written (a batch being written included). */
  readonly queued: number;
  /** `maxQueued`. */
  readonly max: number;
  /** Failed write attempts since the writer was made (one batch tried three times counts three). */
  readonly failedWrites: number;
  /** From a failed write until the next one that succeeds. */
  readonly failing: boolean;
  /** While failing, how long until the next attempt. */
  readonly retryInMs: number;
}

const SILENT = pino({ level: 'silent' });

export class BatchWriter<T> {
  private queue: T[] = [];
  /** Items added and not yet written: the queue plus a batch being written. */
  private pending = 0;
  /** The batch timer, or while failing the retry timer. */
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Failed attempts in the current streak; 0 while writes succeed. */
  private streak = 0;
  private failedWrites = 0;
  private retryAt = 0;
  /** The error of the current streak's latest failure; undefined while writes succeed. */
  private lastFailure: unknown;

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    private readonly options: BatchOptions,
    private readonly logger: Logger = SILENT,
    /** What the items are, for the log: `usage records`. */
    private readonly what = 'items',
  ) {}

  /** False while `maxQueued` items wait: a plain comparison, cheap enough for every request. */
  get accepting(): boolean {
    return this.pending < this.options.maxQueued;
  }

  /** Queues an item; never refuses one (`accepting` is for the owner to consult before new work). */
  add(item: T): void {
    this.queue.push(item);
    this.pending++;
    this.schedule();
  }

  /** Writes what is queued now, retry backoff or not; resolves once everything added so far is written. */
  flush(): Promise<void> {
    if (this.streak === 0) this.clearTimer(); // while failing, the retry timer stays as a fallback
    return this.after(() => this.writeQueued());
  }

  /** Runs `task` after the writes queued so far (whether they succeeded or not), as one more write. */
  after(task: () => Promise<void>): Promise<void> {
    const run = this.writing.catch(() => undefined).then(task);
    this.writing = run;
    return run;
  }

  /** The items queued and not yet handed to a write (run in `after` to see every unwritten one). */
  queued(): T[] {
    return [...this.queue];
  }

  stats(): BatchStats {
    return {
      queued: this.pending,
      max: this.options.maxQueued,
      failedWrites: this.failedWrites,
      failing: this.streak > 0,
      retryInMs: this.streak > 0 ? Math.max(0, this.retryAt - Date.now()) : 0,
    };
  }

  /** Why writes are failing (the latest error), or undefined while they succeed: for readiness. */
  failure(): unknown {
    return this.streak > 0 ? this.lastFailure : undefined;
  }

  /**
   * Writes everything queued, retrying failed writes (with their backoff) for up to `waitMs`, and logs
   * what could still not be written: those items are lost with the process, so the log is their last
   * record. Returns how many that was.
   */
  async close(waitMs: number): Promise<number> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      await this.flush().catch(() => undefined); // counted and logged by `failed`
      if (this.queue.length === 0) break;
      if (this.streak === 0) continue; // written, but more arrived meanwhile
      if (this.retryAt > deadline) break;
      this.clearTimer(); // this loop makes the retry, after the same backoff, on a timer that holds the process
      await new Promise((r) => setTimeout(r, Math.max(0, this.retryAt - Date.now())));
    }
    this.clearTimer();
    const left = this.queue;
    if (left.length > 0) {
      this.logger.error(
        { unwritten: left, count: left.length },
        `${left.length} ${this.what} could not be written before closing; they are listed here`,
      );
    }
    return left.length;
  }

  private async writeQueued(): Promise<void> {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    try {
      await this.write(batch);
    } catch (e) {
      this.queue = batch.concat(this.queue); // back at the head: the order of writing is kept
      this.failed(e);
      throw e;
    }
    this.pending -= batch.length;
    if (this.streak > 0) this.recovered();
  }

  private failed(e: unknown): void {
    this.failedWrites++;
    this.streak++;
    this.lastFailure = e;
    if (this.streak === 1) {
      this.logger.error(
        { err: e, queued: this.pending },
        `writing ${this.what} failed; retrying with backoff, nothing is dropped`,
      );
    }
    const delay = Math.min(this.options.retryMaxMs, this.options.retryFirstMs * 2 ** (this.streak - 1));
    this.retryAt = Date.now() + delay;
    this.clearTimer();
    this.timer = setTimeout(() => this.fire(), delay).unref();
  }

  private recovered(): void {
    this.logger.warn(
      { failed_writes: this.streak, queued: this.pending },
      `writing ${this.what} works again after ${this.streak} failed attempts`,
    );
    this.streak = 0;
    this.lastFailure = undefined;
    this.clearTimer();
    this.schedule();
  }

  /** While failing the retry timer is the only writer; otherwise a full batch goes now, else after a delay. */
  private schedule(): void {
    if (this.streak > 0 || this.queue.length === 0) return;
    if (this.queue.length >= this.options.maxBatch) this.fire();
    else this.timer ??= setTimeout(() => this.fire(), this.options.flushEveryMs).unref();
  }

  /** A background write: its failure is handled by `failed` (kept, retried, logged). */
  private fire(): void {
    this.timer = undefined;
    this.flush().catch(() => undefined);
  }

  private clearTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
