/**
 * The stores on MongoDB (any number of instances sharing one database; the data directory then holds
 * only this instance's secrets and is not locked). Loaded by open-stores.ts only for `driver: mongodb`.
 */
import type { AuditConfig, MongoStorageConfig } from '../../../config/schema';
import { firstFailing } from '../store-health';
import { storesOf, type Stores } from '../stores';
import { connectMongo } from './connect';
import { MongoAdminTokenStore } from './mongo-admin-token-store';
import { MongoAuditStore } from './mongo-audit-store';
import { MongoBatchLineStore } from './mongo-batch-line-store';
import { MongoClaimStore } from './mongo-claim-store';
import { MongoFileStore } from './mongo-file-store';
import { MongoKeyStore } from './mongo-key-store';
import { MongoPing } from './mongo-ping';
import { MongoTaskStore } from './mongo-task-store';
import { MongoTeamStore } from './mongo-team-store';
import { MongoUsageStore, type MongoUsageOptions } from './mongo-usage-store';
import { checkStoreIndexes, type StoreRetention } from './store-indexes';
import { answeringUnavailable } from './unavailable';

/** The stores' retention as MongoDB keeps it: TTL indexes (store-indexes.ts). */
export const mongoRetention = (storage: MongoStorageConfig, audit: AuditConfig): StoreRetention => ({
  tasksMs: storage.task_retention,
  usageMs: storage.usage_retention,
  auditMs: audit.retention,
});

/** Refuses to start (with what is missing) when the deploy step has not built the indexes as configured. */
export async function openMongoStores(
  storage: MongoStorageConfig,
  usageOptions: MongoUsageOptions,
  audit: AuditConfig,
): Promise<Stores> {
  const client = await connectMongo(storage.uri, { appName: 'model-gateway', setting: 'storage.uri' });
  const db = client.db(storage.database);
  try {
    await checkStoreIndexes(db, mongoRetention(storage, audit));
  } catch (e) {
    await client.close();
    throw e;
  }
  const keys = MongoKeyStore.open(db);
  const usage = MongoUsageStore.open(db, usageOptions);
  const tasks = MongoTaskStore.open(db, { logger: usageOptions.logger });
  // A store MongoDB cannot serve in time answers 503 store_unavailable (unavailable.ts).
  const opened = {
    keys: answeringUnavailable(keys),
    usage: answeringUnavailable(usage),
    tasks: answeringUnavailable(tasks),
    teams: answeringUnavailable(MongoTeamStore.open(db)),
    claims: MongoClaimStore.open(db),
    adminTokens: answeringUnavailable(MongoAdminTokenStore.open(db)),
    audit: answeringUnavailable(MongoAuditStore.open(db)),
    files: answeringUnavailable(MongoFileStore.open(db, { logger: usageOptions.logger })),
    batchLines: answeringUnavailable(MongoBatchLineStore.open(db)),
  };
  const ping = new MongoPing(db);
  const health = async () => firstFailing([await ping.health(), usage.health()]);
  return storesOf(opened, health, () => client.close());
}
