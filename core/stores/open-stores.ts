/**
 * The stores gateway.yaml's `storage:` asks for: embedded files under the data directory (one instance
 * per directory, enforced by a lock file held until `close`), or MongoDB (any number of instances sharing
 * one database; the data directory then holds only this instance's secrets and is not locked).
 */
import type { StorageConfig } from '../../config/schema';
import { DataDirLock } from './embedded/data-dir-lock';
import { EmbeddedKeyStore } from './embedded/embedded-key-store';
import { EmbeddedTaskStore } from './embedded/embedded-task-store';
import { EmbeddedUsageStore } from './embedded/embedded-usage-store';
import type { KeyStore } from './key-store';
import { connectMongo } from './mongodb/connect';
import { MongoKeyStore } from './mongodb/mongo-key-store';
import { MongoTaskStore } from './mongodb/mongo-task-store';
import { MongoUsageStore } from './mongodb/mongo-usage-store';
import type { TaskStore } from './task-store';
import type { UsageStore } from './usage-store';

export interface Stores {
  readonly keys: KeyStore;
  readonly usage: UsageStore;
  readonly tasks: TaskStore;
  /** Flushes and closes every store (and the MongoDB client, if any), then releases the data directory. */
  close(): Promise<void>;
}

/** Usage records are written in batches off the request path. */
const USAGE_BATCHING = { flushEveryMs: 200, maxBatch: 1000 };

export async function openStores(storage: StorageConfig): Promise<Stores> {
  if (storage.driver === 'mongodb') return openMongo(storage.uri, storage.database);
  const dir = storage.data_dir;
  const lock = await DataDirLock.acquire(dir);
  try {
    const [keys, usage, tasks] = await Promise.all([
      EmbeddedKeyStore.open(dir),
      EmbeddedUsageStore.open(dir, USAGE_BATCHING),
      EmbeddedTaskStore.open(dir),
    ]);
    return {
      keys,
      usage,
      tasks,
      close: async () => {
        await closeAll(keys, usage, tasks);
        await lock.release();
      },
    };
  } catch (e) {
    await lock.release();
    throw e;
  }
}

async function openMongo(uri: string, database: string): Promise<Stores> {
  const client = await connectMongo(uri, { appName: 'model-gateway' });
  const db = client.db(database);
  const [keys, usage, tasks] = await Promise.all([
    MongoKeyStore.open(db),
    MongoUsageStore.open(db, USAGE_BATCHING),
    MongoTaskStore.open(db),
  ]);
  return {
    keys,
    usage,
    tasks,
    close: async () => {
      await closeAll(keys, usage, tasks);
      await client.close();
    },
  };
}

/** Tasks first (their writes may still bill), then usage (flushes its queue), then keys. */
async function closeAll(keys: KeyStore, usage: UsageStore, tasks: TaskStore): Promise<void> {
  await tasks.close();
  await usage.close();
  await keys.close();
}
