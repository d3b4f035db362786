/**
 * Queues items and writes them in batches: when the batch is full or after a short delay, off the request
 * path. Writes run one at a time in order; a failed write puts its batch back for the next flush, so a
 * transient error loses nothing.
 */
export interface BatchOptions {
  readonly flushEveryMs: number;
  readonly maxBatch: number;
}

export class BatchWriter<T> {
  private queue: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    private readonly options: BatchOptions,
  ) {}

  add(item: T): void {
    this.queue.push(item);
    if (this.queue.length >= this.options.maxBatch) this.flushInBackground();
    else this.timer ??= setTimeout(() => this.flushInBackground(), this.options.flushEveryMs).unref();
  }

  /** Resolves when everything added so far is written. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      this.writing = this.after(() =>
        this.write(batch).catch((e: unknown) => {
          this.queue.unshift(...batch);
          throw e;
        }),
      );
    }
    return this.writing;
  }

  /** Runs `task` after the writes queued so far (whether they succeeded or not), as one more write. */
  after(task: () => Promise<void>): Promise<void> {
    this.writing = this.writing.catch(() => undefined).then(task);
    return this.writing;
  }

  /** A failed background write keeps its batch queued for the next flush; nothing to report here. */
  private flushInBackground(): void {
    this.flush().catch(() => undefined);
  }
}
