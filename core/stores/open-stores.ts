/**
 * The stores gateway.yaml's `storage:` asks for: embedded files under the data directory (one instance
 * per directory, enforced by a lock file held until `close`), or MongoDB (mongodb/open-mongo-stores.ts).
 */
import type { Logger } from 'pino';
import type { AuditConfig, StorageConfig } from '../../config/schema';
import { DataDirLock } from './embedded/data-dir-lock';
import { EmbeddedAdminTokenStore } from './embedded/embedded-admin-token-store';
import { EmbeddedAuditStore } from './embedded/embedded-audit-store';
import { EmbeddedBatchLineStore } from './embedded/embedded-batch-line-store';
import { EmbeddedClaimStore } from './embedded/embedded-claim-store';
import { EmbeddedFileStore } from './embedded/embedded-file-store';
import { EmbeddedKeyStore } from './embedded/embedded-key-store';
import { EmbeddedTaskStore } from './embedded/embedded-task-store';
import { EmbeddedTeamStore } from './embedded/embedded-team-store';
import { EmbeddedUsageStore } from './embedded/embedded-usage-store';
import { firstFailing } from './store-health';
import { storesOf, USAGE_WRITES, type Stores } from './stores';

/** The audit section's default, for callers that open stores without a whole configuration. */
const DEFAULT_AUDIT: AuditConfig = { retention: 365 * 24 * 3600 * 1000 };

export async function openStores(
  storage: StorageConfig,
  logger: Logger,
  audit: AuditConfig = DEFAULT_AUDIT,
): Promise<Stores> {
  const usageOptions = { ...USAGE_WRITES, maxQueued: storage.usage_queue_max, logger };
  if (storage.driver === 'mongodb') {
    // Loaded only here: the driver takes about 100 ms to load, a sixth of an embedded gateway's start-up.
    const { openMongoStores } = await import('./mongodb/open-mongo-stores');
    return openMongoStores(storage, usageOptions, audit);
  }
  const dir = storage.data_dir;
  const lock = await DataDirLock.acquire(dir);
  try {
    const [keys, usage, tasks, teams, adminTokens, auditStore, files, batchLines] = await Promise.all([
      EmbeddedKeyStore.open(dir),
      EmbeddedUsageStore.open(dir, { ...usageOptions, rotateBytes: storage.usage_rotate_size }),
      EmbeddedTaskStore.open(dir, { retentionMs: storage.task_retention }),
      EmbeddedTeamStore.open(dir),
      EmbeddedAdminTokenStore.open(dir),
      EmbeddedAuditStore.open(dir, { retentionMs: audit.retention, logger }),
      EmbeddedFileStore.open(dir),
      EmbeddedBatchLineStore.open(dir),
    ]);
    const health = () =>
      Promise.resolve(
        firstFailing([
          usage.health(),
          tasks.health(),
          keys.health(),
          teams.health(),
          adminTokens.health(),
          auditStore.health(),
          files.health(),
          batchLines.health(),
        ]),
      );
    const claims = new EmbeddedClaimStore(dir);
    const opened = { keys, usage, tasks, teams, claims, adminTokens, audit: auditStore, files, batchLines };
    return storesOf(opened, health, () => lock.release());
  } catch (e) {
    await lock.release();
    throw e;
  }
}
