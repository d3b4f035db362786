/**
 * Usage records appended as JSON lines to `usage.jsonl` under the data directory (rotated by size into
 * `usage-<time>.jsonl`: see AppendLog). `record` only queues; a timer (or a full batch) appends the queue
 * in one write, so metering never adds disk I/O to a request. A failed append is cut off and retried
 * (BatchWriter, AppendLog), so a record is written once or not yet, never twice.
 * A record is serialised as it is queued: a line is one short string, where a queued object would live
 * on into the old generation and cost the collector (about 8% of throughput in `npm run bench`).
 *
 * Summaries read roll-ups per (hour, key, team, model, endpoint), kept as records are recorded. A
 * checkpoint of them (`usage.checkpoint`: usage-checkpoint.ts), with the ids `recordOnce` wrote and the
 * position in the files it covers, is taken every CHECKPOINT_EVERY lines and at close, so open reads it
 * and the lines written after it (usage-load.ts); without one that fits the files, open reads every file
 * (rotated ones included), as it did before checkpoints.
 *
 * A checkpoint is taken in the write chain, where no append moves the files: the position, then the
 * roll-ups (copied a slice at a time, the event loop free between), with the once ids and the lines
 * still queued (counted as queued, not yet written) read in the step that completes the copy. The file
 * is written beside the chain, so appends wait only for the copy.
 */
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { BatchWriter, type BatchOptions } from '../batch-writer';
import type { UsageRollup } from '../usage-rollup';
import {
  type UsageFilter,
  type UsageRecord,
  type UsageStats,
  type UsageStore,
  type UsageSummaryQuery,
  type UsageSummaryRow,
} from '../usage-store';
import { writeHealth, type StoreHealth } from '../store-health';
import { AppendLog } from './append-log';
import { CHECKPOINT_FILE, writeCheckpoint, type FileMark, type UsageCheckpoint } from './usage-checkpoint';
import { usageLine } from './usage-line';
import { eachLine } from './journal-lines';
import { loadUsage, parseLine, type LoadedUsage } from './usage-load';
import { positionNow, statFiles } from './usage-position';

export interface EmbeddedUsageOptions extends BatchOptions {
  /** `usage.jsonl` is rotated once it reaches this many bytes. */
  readonly rotateBytes: number;
  readonly logger?: Logger;
  /** Lines between checkpoints (CHECKPOINT_EVERY unless set). */
  readonly checkpointEvery?: number;
}

/**
 * The most lines one append writes. An append to a file is cheap, and a line waiting in memory is not:
 * under load a batch of a thousand filled in 200 ms, long enough for every waiting line, and the batch's
 * joined text, to be promoted to the old generation (a third of what a json request promoted). A
 * hundred leave within about 20 ms at 5,000 requests a second.
 */
const LINES_PER_APPEND = 100;

/**
 * Lines between checkpoints: a restart reads at most about this many lines past the last one (some
 * tenths of a second). Under full load (5,000 calls a second) that is one every 20 s, each the size of
 * the roll-ups (76 bytes a bucket: 80 MB at a million buckets), written beside the write chain.
 */
const CHECKPOINT_EVERY = 100_000;

export class EmbeddedUsageStore implements UsageStore {
  private readonly batches: BatchWriter<string>;
  private readonly onceWrites = new Map<string, Promise<boolean>>();
  /** Ids of the records `recordOnce` wrote. */
  private readonly onceIds: Set<string>;
  private readonly rollup: UsageRollup;
  private readonly checkpointFile: string;
  /** The rotated files the roll-ups count, as of open or the last checkpoint: a later one must list them. */
  private counted: readonly FileMark[];
  /** Lines counted since the last checkpoint was taken (at open: those the one on disk lacks). */
  private sinceCheckpoint: number;
  /** The checkpoint on disk is of no use (it does not fit the files, or writing it failed): replace it. */
  private stale: boolean;
  /** The checkpoint being taken or written, while one is. */
  private checkpointing: Promise<void> | undefined;
  private readonly checkpointEvery: number;

  private constructor(
    dataDir: string,
    private readonly log: AppendLog,
    options: EmbeddedUsageOptions,
    private readonly logger: Logger,
    loaded: LoadedUsage,
  ) {
    this.checkpointEvery = options.checkpointEvery ?? CHECKPOINT_EVERY;
    ({
      onceIds: this.onceIds,
      rollup: this.rollup,
      counted: this.counted,
      sinceCheckpoint: this.sinceCheckpoint,
      stale: this.stale,
    } = loaded);
    this.checkpointFile = join(dataDir, CHECKPOINT_FILE);
    this.batches = new BatchWriter(
      (lines) => this.log.append(lines.join('\n') + '\n', false),
      { ...options, maxBatch: Math.min(options.maxBatch, LINES_PER_APPEND) },
      logger,
      'usage records',
    );
  }

  static async open(dataDir: string, options: EmbeddedUsageOptions): Promise<EmbeddedUsageStore> {
    const logger = options.logger ?? pino({ level: 'silent' });
    const log = await AppendLog.open(dataDir, 'usage', options.rotateBytes, (e) =>
      logger.error({ err: e }, 'rotating usage.jsonl failed; appending to it meanwhile'),
    );
    const loaded = await loadUsage(dataDir, log, logger).catch(async (e: unknown) => {
      await log.close();
      throw e;
    });
    const store = new EmbeddedUsageStore(dataDir, log, options, logger, loaded);
    store.checkpointWhenDue(); // after reading many lines, so the next start need not read them again
    return store;
  }

  /** Counted in the roll-ups as it is queued: the queue never drops a record. */
  record(entry: UsageRecord): void {
    this.batches.add(usageLine(entry));
    this.rollup.add(entry);
    this.sinceCheckpoint++;
    this.checkpointWhenDue();
  }

  async summary(query: UsageSummaryQuery): Promise<UsageSummaryRow[]> {
    await this.flush();
    return this.rollup.summary(query);
  }

  async lastUsed(keyIds: readonly string[]): Promise<Map<string, string>> {
    await this.flush();
    return this.rollup.lastUsed(keyIds);
  }

  accepting(): boolean {
    return this.batches.accepting;
  }

  stats(): UsageStats {
    return this.batches.stats();
  }

  flush(): Promise<void> {
    return this.batches.flush();
  }

  /** Failing from a failed append of usage.jsonl until one succeeds (the writer retries by itself). */
  health(): StoreHealth {
    return writeHealth('usage.jsonl', this.batches.failure());
  }

  async recordOnce(entry: UsageRecord): Promise<boolean> {
    const written = this.onceIds;
    // A call for an id whose write is under way waits for it: false only once that record is durable.
    const pending = this.onceWrites.get(entry.id);
    if (pending) {
      return pending.then(
        () => false,
        () => this.recordOnce(entry), // that write failed: this call makes its own attempt
      );
    }
    if (written.has(entry.id)) return false;
    // Counted in the same step of the write chain as its append, so a checkpoint (taken in the chain)
    // holds both the line and its count, or neither.
    const write = this.appendDurably(usageLine({ ...entry, once: true }), () => {
      written.add(entry.id);
      this.rollup.add(entry);
      this.sinceCheckpoint++;
    }).then(() => {
      this.checkpointWhenDue();
      return true;
    });
    this.onceWrites.set(entry.id, write);
    try {
      return await write;
    } finally {
      this.onceWrites.delete(entry.id);
    }
  }

  /**
   * Appends one line on its own (behind any batch under way) and syncs it: a bill survives a power cut.
   * `then` runs once it is durable, before anything else in the chain.
   */
  private appendDurably(line: string, then: () => void): Promise<void> {
    return this.batches.after(async () => {
      await this.log.append(line + '\n', true);
      then();
    });
  }

  async list(filter: UsageFilter = {}): Promise<UsageRecord[]> {
    await this.flush();
    const out: UsageRecord[] = [];
    await this.scan((record) => {
      if (filter.id !== undefined && record.id !== filter.id) return;
      if (filter.key_id !== undefined && record.key_id !== filter.key_id) return;
      if (filter.team_id !== undefined && record.team_id !== filter.team_id) return;
      if (filter.model !== undefined && record.model !== filter.model) return;
      if (filter.endpoint !== undefined && record.endpoint !== filter.endpoint) return;
      out.push(record);
    });
    return filter.limit !== undefined ? out.slice(-filter.limit) : out;
  }

  /**
   * Calls `onRecord` with every record, oldest file first. It runs in the write chain, so no rotation
   * moves a file under it. A line torn by a failed or interrupted append is skipped: its write was never
   * acknowledged.
   */
  private scan(onRecord: (record: UsageRecord) => void): Promise<void> {
    return this.batches.after(async () => {
      for (const file of await this.log.files()) {
        await eachLine(file, (line) => {
          const record = parseLine(line);
          if (record) onRecord(record);
        });
      }
    });
  }

  /** Writes what is queued, then a checkpoint of everything counted, so the next open reads no file whole. */
  async close(waitMs = 0): Promise<void> {
    await this.batches.close(waitMs);
    await this.checkpointing;
    if (this.sinceCheckpoint > 0 || this.stale) await this.checkpoint();
    await this.log.close();
  }

  private checkpointWhenDue(): void {
    if (this.sinceCheckpoint >= this.checkpointEvery) void this.checkpoint();
  }

  /**
   * Takes a checkpoint unless one is under way. Never rejects and never fails a usage write: a failure is
   * logged, and the next checkpoint is tried after as many lines again, or at close.
   */
  private checkpoint(): Promise<void> {
    this.checkpointing ??= this.takeCheckpoint()
      .catch((e: unknown) => {
        this.stale = true; // close tries again
        this.logger.error(
          { err: e },
          'writing usage.checkpoint failed; the next start reads more of the usage files until one succeeds',
        );
      })
      .finally(() => (this.checkpointing = undefined));
    return this.checkpointing;
  }

  private async takeCheckpoint(): Promise<void> {
    let checkpoint: UsageCheckpoint | undefined;
    await this.batches.after(async () => {
      checkpoint = await this.capture();
    });
    if (checkpoint) await writeCheckpoint(this.checkpointFile, checkpoint);
  }

  /**
   * In the write chain. Everything counted is either in the files up to the position or still queued:
   * the position is read with no append under way (none runs until the chain moves on), and the
   * roll-ups, once ids and queue in the one synchronous step that completes the roll-ups' copy, which
   * no record can come between.
   */
  private async capture(): Promise<UsageCheckpoint | undefined> {
    await this.log.sync(); // what the position counts is on disk before a checkpoint says so
    const position = positionNow(await statFiles(await this.log.files()), this.log.position(), this.counted);
    if ('unusable' in position) {
      this.logger.warn(
        { reason: position.unusable },
        'no usage.checkpoint taken: the next start reads every usage file',
      );
      this.sinceCheckpoint = 0; // tried again after as many lines
      return undefined;
    }
    return this.rollup.exportStateInSlices((rollup) => {
      this.counted = position.rotated;
      this.sinceCheckpoint = 0;
      this.stale = false;
      return { position, onceIds: [...this.onceIds], pending: this.batches.queued(), rollup };
    });
  }
}
