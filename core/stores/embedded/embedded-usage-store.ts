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
import { BatchWriter, type BatchOptions } from '../batch-writer';
import { type UsageFilter, type UsageRecord, type UsageStore } from '../usage-store';

export class EmbeddedUsageStore implements UsageStore {
  private readonly batches: BatchWriter<string>;
  private onceIds: Promise<Set<string>> | undefined;
  private readonly onceWrites = new Map<string, Promise<boolean>>();

  private constructor(
    private readonly file: string,
    private readonly handle: FileHandle,
    options: BatchOptions,
  ) {
    this.batches = new BatchWriter((lines) => this.handle.appendFile(lines.join('\n') + '\n'), options);
  }

  static async open(dataDir: string, options: BatchOptions): Promise<EmbeddedUsageStore> {
    await mkdir(dataDir, { recursive: true });
    const file = join(dataDir, 'usage.jsonl');
    return new EmbeddedUsageStore(file, await open(file, 'a', 0o600), options);
  }

  record(entry: UsageRecord): void {
    this.batches.add(JSON.stringify(entry));
  }

  flush(): Promise<void> {
    return this.batches.flush();
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
    return this.batches.after(async () => {
      await this.handle.appendFile(line + '\n');
      await this.handle.datasync();
    });
  }

  /** Ids of the records `recordOnce` wrote, read from the file once. */
  private async readOnceIds(): Promise<Set<string>> {
    const ids = new Set<string>();
    await this.scan((record) => {
      if (record.once) ids.add(record.id);
    });
    return ids;
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
