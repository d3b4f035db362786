/** The stores a gateway runs on, whichever driver holds them (open-stores.ts picks it). */
import type { ClaimStore } from './claim-store';
import type { KeyStore } from './key-store';
import type { StoreHealth } from './store-health';
import type { TaskStore } from './task-store';
import type { UsageStore } from './usage-store';

export interface Stores {
  readonly keys: KeyStore;
  readonly usage: UsageStore;
  readonly tasks: TaskStore;
  /** Names claimed once across instances (spend alerts' thresholds); used without Redis. */
  readonly claims: ClaimStore;
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
  keys: KeyStore,
  usage: UsageStore,
  tasks: TaskStore,
  claims: ClaimStore,
  health: () => Promise<StoreHealth>,
  release: () => Promise<void>,
): Stores {
  return {
    keys,
    usage,
    tasks,
    claims,
    health,
    close: async (waitMs) => {
      await closeAll(keys, usage, tasks, waitMs);
      await claims.close();
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
