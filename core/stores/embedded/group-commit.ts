/**
 * Group commit for an append-only journal: lines added while a write runs go out together in the next
 * one, so changes made in the same moment share one append and one fdatasync. Each line is acknowledged
 * only once its write is on disk. Writes run one at a time, so the writer needs no locking of its own.
 */

interface Entry {
  readonly line: string;
  /** Applies the change to memory, run the moment its write succeeded (before anything else runs). */
  readonly written: () => void;
  readonly resolve: () => void;
  readonly reject: (e: unknown) => void;
}

export class GroupCommit {
  private pending: Entry[] = [];
  private running: Promise<void> | undefined;
  /** The last write's error, until one succeeds: for readiness. */
  private lastFailure: unknown;

  constructor(
    /** Appends the lines (each ends in a newline) and syncs them to disk. */
    private readonly write: (text: string, lines: number) => Promise<void>,
    /** Run between two writes, with nothing being written (compaction); its failure is ignored. */
    private readonly between: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /**
   * Resolves once `line` is on disk. `written` runs as soon as the write succeeds, in the same turn as
   * the write's end: memory then never lags the journal, even for `between`, which runs right after.
   */
  add(line: string, written: () => void = () => undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ line, written, resolve, reject });
      this.running ??= this.loop();
    });
  }

  get failure(): unknown {
    return this.lastFailure;
  }

  /** Resolves once every line added so far is written or has failed. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    while (this.pending.length > 0) {
      const entries = this.pending;
      this.pending = [];
      try {
        await this.write(entries.map((e) => e.line).join('\n') + '\n', entries.length);
        this.lastFailure = undefined;
        for (const entry of entries) entry.written();
        for (const entry of entries) entry.resolve();
      } catch (e) {
        this.lastFailure = e;
        for (const entry of entries) entry.reject(e);
      }
      await this.between().catch(() => undefined);
    }
    this.running = undefined;
  }
}
