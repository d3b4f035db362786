/**
 * The stores gateway.yaml's `storage:` asks for: embedded files under the data directory (one instance
 * per directory, enforced by a lock file held until `close`), or MongoDB (mongodb/open-mongo-stores.ts).
 */
import type { Logger } from 'pino';
import type { StorageConfig } from '../../config/schema';
import { DataDirLock } from './embedded/data-dir-lock';
import { EmbeddedClaimStore } from './embedded/embedded-claim-store';
import { EmbeddedKeyStore } from './embedded/embedded-key-store';
import { EmbeddedTaskStore } from './embedded/embedded-task-store';
import { EmbeddedTeamStore } from './embedded/embedded-team-store';
import { EmbeddedUsageStore } from './embedded/embedded-usage-store';
import { firstFailing } from './store-health';
import { storesOf, USAGE_WRITES, type Stores } from './stores';

export async function openStores(storage: StorageConfig, logger: Logger): Promise<Stores> {
  const usageOptions = { ...USAGE_WRITES, maxQueued: storage.usage_queue_max, logger };
  if (storage.driver === 'mongodb') {
    // Loaded only here: the driver takes about 100 ms to load, a sixth of an embedded gateway's start-up.
    const { openMongoStores } = await import('./mongodb/open-mongo-stores');
    return openMongoStores(storage, usageOptions);
  }
  const dir = storage.data_dir;
  const lock = await DataDirLock.acquire(dir);
  try {
    const [keys, usage, tasks, teams] = await Promise.all([
      EmbeddedKeyStore.open(dir),
      EmbeddedUsageStore.open(dir, { ...usageOptions, rotateBytes: storage.usage_rotate_size }),
      EmbeddedTaskStore.open(dir, { retentionMs: storage.task_retention }),
      EmbeddedTeamStore.open(dir),
    ]);
    const health = () =>
      Promise.resolve(firstFailing([usage.health(), tasks.health(), keys.health(), teams.health()]));
    const claims = new EmbeddedClaimStore(dir);
    return storesOf({ keys, usage, tasks, teams, claims }, health, () => lock.release());
  } catch (e) {
    await lock.release();
    throw e;
  }
}
