/**
 * Usage records appended as JSON lines to `usage.jsonl` under the data directory (rotated by size into
 * `usage-<time>.jsonl`: see AppendLog). `record` only queues; a timer (or a full batch) appends the queue
 * in one write, so metering never adds disk I/O to a request. A failed append is cut off and retried
 * (BatchWriter, AppendLog), so a record is written once or not yet, never twice.
 * A record is serialised as it is queued: a line is one short string, where a queued object would live
 * on into the old generation and cost the collector (about 8% of throughput in `npm run bench`).
 *
 * Summaries read roll-ups per (hour, key, model), built at open by one scan of every file (rotated ones
 * included; the same scan finds the ids `recordOnce` wrote) and kept as records are recorded.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import pino, { type Logger } from 'pino';
import { BatchWriter, type BatchOptions } from '../batch-writer';
import { UsageRollup } from '../usage-rollup';
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
import { usageLine } from './usage-line';

export interface EmbeddedUsageOptions extends BatchOptions {
  /** `usage.jsonl` is rotated once it reaches this many bytes. */
  readonly rotateBytes: number;
  readonly logger?: Logger;
}

/**
 * The most lines one append writes. An append to a file is cheap, and a line waiting in memory is not:
 * under load a batch of a thousand filled in 200 ms, long enough for every waiting line, and the batch's
 * joined text, to be promoted to the old generation (a third of what a json request promoted). A
 * hundred leave within about 20 ms at 5,000 requests a second.
 */
const LINES_PER_APPEND = 100;

export class EmbeddedUsageStore implements UsageStore {
  private readonly batches: BatchWriter<string>;
  private readonly onceWrites = new Map<string, Promise<boolean>>();

  private constructor(
    private readonly log: AppendLog,
    options: BatchOptions,
    logger: Logger,
    /** Ids of the records `recordOnce` wrote. */
    private readonly onceIds: Set<string>,
    private readonly rollup: UsageRollup,
  ) {
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
    const onceIds = new Set<string>();
    const rollup = new UsageRollup();
    try {
      for (const file of await log.files()) {
        await scanFile(file, (record) => {
          if (record.once) onceIds.add(record.id);
          rollup.add(record);
        });
      }
    } catch (e) {
      await log.close();
      throw e;
    }
    return new EmbeddedUsageStore(log, options, logger, onceIds, rollup);
  }

  /** Counted in the roll-ups as it is queued: the queue never drops a record. */
  record(entry: UsageRecord): void {
    this.batches.add(usageLine(entry));
    this.rollup.add(entry);
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
    const write = this.appendDurably(usageLine({ ...entry, once: true })).then(() => {
      written.add(entry.id);
      this.rollup.add(entry);
      return true;
    });
    this.onceWrites.set(entry.id, write);
    try {
      return await write;
    } finally {
      this.onceWrites.delete(entry.id);
    }
  }

  /** Appends one line on its own (behind any batch under way) and syncs it: a bill survives a power cut. */
  private appendDurably(line: string): Promise<void> {
    return this.batches.after(() => this.log.append(line + '\n', true));
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
      for (const file of await this.log.files()) await scanFile(file, onRecord);
    });
  }

  async close(waitMs = 0): Promise<void> {
    await this.batches.close(waitMs);
    await this.log.close();
  }
}

async function scanFile(file: string, onRecord: (record: UsageRecord) => void): Promise<void> {
  try {
    // Only a regular file holds records (a device in its place, /dev/full in the tests, would never end).
    if (!(await stat(file)).isFile()) return;
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    for await (const line of lines) {
      const record = parseLine(line);
      if (record) onRecord(record);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

function parseLine(line: string): UsageRecord | undefined {
  if (!line) return undefined;
  try {
    return JSON.parse(line) as UsageRecord;
  } catch {
    return undefined;
  }
}
