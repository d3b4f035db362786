/**
 * Usage records appended as JSON lines to `usage.jsonl` under the data directory. `record` only queues;
 * a timer (or a full batch) appends the queue in one write, so metering never adds disk I/O to a request.
 * A record is serialised as it is queued: a line is one short string, where a queued object would live
 * on into the old generation and cost the collector (about 8% of throughput in `npm run bench`).
 */
import { createReadStream } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type UsageFilter, type UsageRecord, type UsageStore } from '../usage-store';

export interface EmbeddedUsageOptions {
  readonly flushEveryMs: number;
  readonly maxBatch: number;
}

export class EmbeddedUsageStore implements UsageStore {
  private queue: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private onceIds: Promise<Set<string>> | undefined;
  private readonly onceWrites = new Map<string, Promise<boolean>>();

  private constructor(
    private readonly file: string,
    private readonly handle: FileHandle,
    private readonly options: EmbeddedUsageOptions,
  ) {}

  static async open(dataDir: string, options: EmbeddedUsageOptions): Promise<EmbeddedUsageStore> {
    await mkdir(dataDir, { recursive: true });
    const file = join(dataDir, 'usage.jsonl');
    return new EmbeddedUsageStore(file, await open(file, 'a', 0o600), options);
  }

  record(entry: UsageRecord): void {
    this.queue.push(JSON.stringify(entry));
    if (this.queue.length >= this.options.maxBatch) this.flushInBackground();
    else this.timer ??= setTimeout(() => this.flushInBackground(), this.options.flushEveryMs).unref();
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const lines = batch.join('\n') + '\n';
      // A failed append puts the batch back, so a transient disk error loses nothing.
      this.writing = this.writing
        .catch(() => undefined)
        .then(() =>
          this.handle.appendFile(lines).catch((e: unknown) => {
            this.queue.unshift(...batch);
            throw e;
          }),
        );
    }
    return this.writing;
  }

  async recordOnce(entry: UsageRecord): Promise<boolean> {
    const written = await (this.onceIds ??= this.readOnceIds());
    // A call for an id whose write is under way waits for it: false only once that record is durable.
    const pending = this.onceWrites.get(entry.id);
    if (pending) {
      return pending.then(
        () => false,
        () => this.recordOnce(entry), // that write failed: this call makes its own attempt
      );
    }
    if (written.has(entry.id)) return false;
    const write = this.appendDurably(JSON.stringify({ ...entry, once: true })).then(() => {
      written.add(entry.id);
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
    const done = this.writing
      .catch(() => undefined)
      .then(() => this.handle.appendFile(line + '\n'))
      .then(() => this.handle.datasync());
    this.writing = done;
    return done;
  }

  /** Ids of the records `recordOnce` wrote, read from the file once. */
  private async readOnceIds(): Promise<Set<string>> {
    const ids = new Set<string>();
    await this.scan((record) => {
      if (record.once) ids.add(record.id);
    });
    return ids;
  }

  /** A failed background write keeps its batch queued for the next flush; nothing to report here. */
  private flushInBackground(): void {
    this.flush().catch(() => undefined);
  }

  async list(filter: UsageFilter = {}): Promise<UsageRecord[]> {
    await this.flush();
    const out: UsageRecord[] = [];
    await this.scan((record) => {
      if (filter.id !== undefined && record.id !== filter.id) return;
      if (filter.key_id !== undefined && record.key_id !== filter.key_id) return;
      out.push(record);
    });
    return filter.limit !== undefined ? out.slice(-filter.limit) : out;
  }

  /**
   * Calls `onRecord` with every record in the file (none when there is no file yet). A line torn by a
   * failed or interrupted append is skipped: its write was never acknowledged.
   */
  private async scan(onRecord: (record: UsageRecord) => void): Promise<void> {
    try {
      const lines = createInterface({ input: createReadStream(this.file), crlfDelay: Infinity });
      for await (const line of lines) {
        const record = parseLine(line);
        if (record) onRecord(record);
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }

  async close(): Promise<void> {
    await this.flush();
    await this.handle.close();
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
