/**
 * The stores gateway.yaml's `storage:` asks for: embedded files under the data directory (one instance
 * per directory, enforced by a lock file held until `close`), or MongoDB (any number of instances sharing
 * one database; the data directory then holds only this instance's secrets and is not locked).
 */
import type { Logger } from 'pino';
import type { MongoStorageConfig, StorageConfig } from '../../config/schema';
import { DataDirLock } from './embedded/data-dir-lock';
import { EmbeddedKeyStore } from './embedded/embedded-key-store';
import { EmbeddedTaskStore } from './embedded/embedded-task-store';
import { EmbeddedUsageStore } from './embedded/embedded-usage-store';
import type { KeyStore } from './key-store';
import { connectMongo } from './mongodb/connect';
import { answeringUnavailable } from './mongodb/unavailable';
import { MongoKeyStore } from './mongodb/mongo-key-store';
import { MongoPing } from './mongodb/mongo-ping';
import { MongoTaskStore } from './mongodb/mongo-task-store';
import { MongoUsageStore, type MongoUsageOptions } from './mongodb/mongo-usage-store';
import { checkStoreIndexes, type StoreRetention } from './mongodb/store-indexes';
import { firstFailing, type StoreHealth } from './store-health';
import type { TaskStore } from './task-store';
import type { UsageStore } from './usage-store';

export interface Stores {
  readonly keys: KeyStore;
  readonly usage: UsageStore;
  readonly tasks: TaskStore;
  /**
   * Whether the stores can do their work now (readiness): MongoDB answers a ping and its usage writes
   * succeed; the embedded files' last writes succeeded.
   */
  health(): Promise<StoreHealth>;
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
  if (storage.driver === 'mongodb') return openMongo(storage, { ...usageOptions, logger });
  const dir = storage.data_dir;
  const lock = await DataDirLock.acquire(dir);
  try {
    const [keys, usage, tasks] = await Promise.all([
      EmbeddedKeyStore.open(dir),
      EmbeddedUsageStore.open(dir, { ...usageOptions, rotateBytes: storage.usage_rotate_size }),
      EmbeddedTaskStore.open(dir, { retentionMs: storage.task_retention }),
    ]);
    const health = () => Promise.resolve(firstFailing([usage.health(), tasks.health(), keys.health()]));
    return storesOf(keys, usage, tasks, health, () => lock.release());
  } catch (e) {
    await lock.release();
    throw e;
  }
}

/** The stores' retention as MongoDB keeps it: TTL indexes (store-indexes.ts). */
export const mongoRetention = (storage: MongoStorageConfig): StoreRetention => ({
  tasksMs: storage.task_retention,
  usageMs: storage.usage_retention,
});

/** Refuses to start (with what is missing) when the deploy step has not built the indexes as configured. */
async function openMongo(storage: MongoStorageConfig, usageOptions: MongoUsageOptions): Promise<Stores> {
  const client = await connectMongo(storage.uri, { appName: 'model-gateway' });
  const db = client.db(storage.database);
  try {
    await checkStoreIndexes(db, mongoRetention(storage));
  } catch (e) {
    await client.close();
    throw e;
  }
  const keys = MongoKeyStore.open(db);
  const usage = MongoUsageStore.open(db, usageOptions);
  const tasks = MongoTaskStore.open(db, { logger: usageOptions.logger });
  // A store MongoDB cannot serve in time answers 503 store_unavailable (mongodb/unavailable.ts).
  const [k, u, t] = [keys, usage, tasks].map(answeringUnavailable) as [
    typeof keys,
    typeof usage,
    typeof tasks,
  ];
  const ping = new MongoPing(db);
  const health = async () => firstFailing([await ping.health(), usage.health()]);
  return storesOf(k, u, t, health, () => client.close());
}

/** The three stores, closed in order and then `release` (the data directory's lock, the MongoDB client). */
function storesOf(
  keys: KeyStore,
  usage: UsageStore,
  tasks: TaskStore,
  health: () => Promise<StoreHealth>,
  release: () => Promise<void>,
): Stores {
  return {
    keys,
    usage,
    tasks,
    health,
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
