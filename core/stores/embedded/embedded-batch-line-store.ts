/**
 * The results of gateway-run batch lines in one process: one append-only file per batch,
 * `batch-lines/<batch_id>.jsonl` (batch-line-log.ts), read back on a batch's first use after a restart
 * and removed by `drop`. What is kept in memory per batch (which lines are stored) lives from that
 * first use until `drop`. One data directory belongs to one gateway process, so the first write per
 * line is decided in memory.
 */
import { mkdir, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BatchLineResult, BatchLineStore } from '../batch-line-store';
import { writeHealth, type StoreHealth } from '../store-health';
import { syncDir } from './atomic-file';
import { BatchLineLog } from './batch-line-log';

export const BATCH_LINES_DIR = 'batch-lines';

/** The ids the gateway gives batches: safe as a file name, nothing that could step out of the folder. */
const FILE_SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;

export class EmbeddedBatchLineStore implements BatchLineStore {
  private readonly batches = new Map<string, Promise<BatchLineLog>>();
  /** Drops under way: a batch used again meanwhile starts over once its file is gone. */
  private readonly dropping = new Map<string, Promise<void>>();
  /** The last write's error, until one succeeds: for readiness. */
  private failure: unknown;

  private constructor(private readonly dir: string) {}

  static async open(dataDir: string): Promise<EmbeddedBatchLineStore> {
    const dir = join(dataDir, BATCH_LINES_DIR);
    await mkdir(dir, { recursive: true });
    return new EmbeddedBatchLineStore(dir);
  }

  async put(batchId: string, result: BatchLineResult): Promise<boolean> {
    // A drop that began while the batch was being read wins: the put then goes to the batch anew.
    for (;;) {
      const opening = this.batch(batchId);
      const log = await opening;
      if (this.batches.get(batchId) === opening) return log.put(result);
    }
  }

  async list(batchId: string): Promise<BatchLineResult[]> {
    return (await this.batch(batchId)).list();
  }

  async count(batchId: string): Promise<number> {
    return (await this.batch(batchId)).count();
  }

  /** Waits for the batch's writes under way, then removes its file and what memory held of it. */
  async drop(batchId: string): Promise<void> {
    const file = this.fileOf(batchId);
    const opened = this.batches.get(batchId);
    this.batches.delete(batchId);
    const done = (this.dropping.get(batchId) ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        await (await opened?.catch(() => undefined))?.close();
        await removeFile(file);
      });
    this.dropping.set(batchId, done);
    try {
      await done;
    } finally {
      if (this.dropping.get(batchId) === done) this.dropping.delete(batchId);
    }
  }

  /** Failing from a failed append until one succeeds (any batch's). */
  health(): StoreHealth {
    return writeHealth(BATCH_LINES_DIR, this.failure);
  }

  async close(): Promise<void> {
    const open = [...this.batches.values()];
    this.batches.clear();
    await Promise.all([...this.dropping.values()].map((d) => d.catch(() => undefined)));
    await Promise.all(open.map(async (log) => (await log.catch(() => undefined))?.close()));
  }

  /** The batch's log, read on first use (after any drop of it under way). */
  private batch(batchId: string): Promise<BatchLineLog> {
    const known = this.batches.get(batchId);
    if (known) return known;
    this.fileOf(batchId); // refuses an id that cannot name a file before anything is read
    const opening = (this.dropping.get(batchId) ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => BatchLineLog.open(this.dir, batchId, (failure) => void (this.failure = failure)));
    this.batches.set(batchId, opening);
    // A read that failed is tried again by the next call.
    opening.catch(() => {
      if (this.batches.get(batchId) === opening) this.batches.delete(batchId);
    });
    return opening;
  }

  private fileOf(batchId: string): string {
    if (!FILE_SAFE_ID.test(batchId))
      throw new Error(`batch id ${JSON.stringify(batchId)} cannot name a file`);
    return join(this.dir, `${batchId}.jsonl`);
  }
}

/** Removes the file (if there) and syncs its folder, so a power cut does not bring a dropped batch back. */
async function removeFile(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  await syncDir(dirname(file));
}
