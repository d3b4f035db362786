/** The stores a gateway runs on, whichever driver holds them (open-stores.ts picks it). */
import type { AdminTokenStore } from './admin-token-store';
import type { AuditStore } from './audit-store';
import type { BatchLineStore } from './batch-line-store';
import type { ClaimStore } from './claim-store';
import type { FileStore } from './file-store';
import type { KeyStore } from './key-store';
import type { StoreHealth } from './store-health';
import type { TaskStore } from './task-store';
import type { TeamStore } from './team-store';
import type { UsageStore } from './usage-store';

export interface Stores {
  readonly keys: KeyStore;
  readonly teams: TeamStore;
  readonly usage: UsageStore;
  readonly tasks: TaskStore;
  /** Names claimed once across instances (spend alerts' thresholds); used without Redis. */
  readonly claims: ClaimStore;
  /** The admin API's own tokens (`POST /admin/tokens`). */
  readonly adminTokens: AdminTokenStore;
  /** The admin API's audit log. */
  readonly audit: AuditStore;
  /** Batch input files clients upload, and the output and error files of the batches the gateway runs. */
  readonly files: FileStore;
  /** The results of the lines of the batches the gateway runs, until each batch's files are written. */
  readonly batchLines: BatchLineStore;
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
export const USAGE_WRITES = { flushEveryMs: 200, maxBatch: 1000, retryFirstMs: 200, retryMaxMs: 10_000 };

/** The stores a driver opened, before they are joined into `Stores`. */
export type OpenedStores = Pick<
  Stores,
  'keys' | 'teams' | 'usage' | 'tasks' | 'claims' | 'adminTokens' | 'audit' | 'files' | 'batchLines'
>;

/** The stores, closed in order and then `release` (the data directory's lock, the MongoDB client). */
export function storesOf(
  opened: OpenedStores,
  health: () => Promise<StoreHealth>,
  release: () => Promise<void>,
): Stores {
  return {
    ...opened,
    health,
    close: async (waitMs) => {
      await closeAll(opened, waitMs);
      await release();
    },
  };
}

/**
 * Tasks and batch lines first (their writes may still bill), then usage (flushes its queue), then the
 * rest.
 */
async function closeAll(opened: OpenedStores, waitMs: number | undefined): Promise<void> {
  await opened.tasks.close();
  await opened.batchLines.close();
  await opened.usage.close(waitMs);
  await opened.keys.close();
  await opened.teams.close();
  await opened.claims.close();
  await opened.adminTokens.close();
  await opened.audit.close();
  await opened.files.close();
}
