/** The stores a gateway runs on, whichever driver holds them (open-stores.ts picks it). */
import type { ClaimStore } from './claim-store';
import type { KeyStore } from './key-store';
import type { StoreHealth } from './store-health';
import type { TaskStore } from './task-store';
import type { TeamStore } from './team-store';
import type { UsageStore } from './usage-store';

/** The stores themselves, without the health and closing that hold them together. */
export interface StoreSet {
  readonly keys: KeyStore;
  readonly usage: UsageStore;
  readonly tasks: TaskStore;
  readonly teams: TeamStore;
  /** Names claimed once across instances (spend alerts' thresholds); used without Redis. */
  readonly claims: ClaimStore;
}

export interface Stores extends StoreSet {
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

/** The stores, closed in order and then `release` (the data directory's lock, the MongoDB client). */
export function storesOf(
  set: StoreSet,
  health: () => Promise<StoreHealth>,
  release: () => Promise<void>,
): Stores {
  return {
    ...set,
    health,
    close: async (waitMs) => {
      await closeAll(set, waitMs);
      await release();
    },
  };
}

/** Tasks first (their writes may still bill), then usage (flushes its queue), then the rest. */
async function closeAll(set: StoreSet, waitMs: number | undefined): Promise<void> {
  await set.tasks.close();
  await set.usage.close(waitMs);
  await Promise.all([set.keys.close(), set.teams.close()]);
  await set.claims.close();
}
