/**
 * The stores gateway.yaml's `storage:` asks for: embedded files under the data directory (one instance
 * per directory, enforced by a lock file held until `close`), or MongoDB (any number of instances sharing
 * one database; the data directory then holds only this instance's secrets and is not locked).
 */
import type { Logger } from 'pino';
import type { StorageConfig } from '../../config/schema';
import { DataDirLock } from './embedded/data-dir-lock';
import { EmbeddedKeyStore } from './embedded/embedded-key-store';
import { EmbeddedTaskStore } from './embedded/embedded-task-store';
import { EmbeddedUsageStore } from './embedded/embedded-usage-store';
import type { KeyStore } from './key-store';
import { connectMongo } from './mongodb/connect';
import { answeringUnavailable } from './mongodb/unavailable';
import { MongoKeyStore } from './mongodb/mongo-key-store';
import { MongoTaskStore } from './mongodb/mongo-task-store';
import { MongoUsageStore, type MongoUsageOptions } from './mongodb/mongo-usage-store';
import type { TaskStore } from './task-store';
import type { UsageStore } from './usage-store';

export interface Stores {
  readonly keys: KeyStore;
  readonly usage: UsageStore;
  readonly tasks: TaskStore;
  /**
   * Flushes and closes every store (and the MongoDB client, if any), then releases the data directory.
   * Failed usage writes are retried for up to `waitMs`.
   */
  close(waitMs?: number): Promise<void>;
}

/**
 * Usage records are written in batches off the request path; a failed write is retried after 200 ms,
 * then twice as long each time, at most every 10 s.
 */
const USAGE_WRITES = { flushEveryMs: 200, maxBatch: 1000, retryFirstMs: 200, retryMaxMs: 10_000 };

export async function openStores(storage: StorageConfig, logger: Logger): Promise<Stores> {
  const usageOptions = { ...USAGE_WRITES, maxQueued: storage.usage_queue_max, logger };
  if (storage.driver === 'mongodb') return openMongo(storage.uri, storage.database, usageOptions);
  const dir = storage.data_dir;
  const lock = await DataDirLock.acquire(dir);
  try {
    const [keys, usage, tasks] = await Promise.all([
      EmbeddedKeyStore.open(dir),
      EmbeddedUsageStore.open(dir, { ...usageOptions, rotateBytes: storage.usage_rotate_size }),
      EmbeddedTaskStore.open(dir),
    ]);
    return storesOf(keys, usage, tasks, () => lock.release());
  } catch (e) {
    await lock.release();
    throw e;
  }
}

async function openMongo(uri: string, database: string, usageOptions: MongoUsageOptions): Promise<Stores> {
  const client = await connectMongo(uri, { appName: 'model-gateway' });
  const db = client.db(database);
  const [keys, usage, tasks] = await Promise.all([
    MongoKeyStore.open(db),
    MongoUsageStore.open(db, usageOptions),
    MongoTaskStore.open(db),
  ]);
  // A store MongoDB cannot serve in time answers 503 store_unavailable (mongodb/unavailable.ts).
  const [k, u, t] = [keys, usage, tasks].map(answeringUnavailable) as [
    typeof keys,
    typeof usage,
    typeof tasks,
  ];
  return storesOf(k, u, t, () => client.close());
}

/** The three stores, closed in order and then `release` (the data directory's lock, the MongoDB client). */
function storesOf(keys: KeyStore, usage: UsageStore, tasks: TaskStore, release: () => Promise<void>): Stores {
  return {
    keys,
    usage,
    tasks,
    close: async (waitMs) => {
      await closeAll(keys, usage, tasks, waitMs);
      await release();
    },
  };
}

/** Tasks first (their writes may still bill), then usage (flushes its queue), then keys. */
async function closeAll(
  keys: KeyStore,
  usage: UsageStore,
  tasks: TaskStore,
  waitMs: number | undefined,
): Promise<void> {
  await tasks.close();
  await usage.close(waitMs);
  await keys.close();
}
