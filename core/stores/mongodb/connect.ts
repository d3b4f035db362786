/**
 * The MongoDB side of the stores: a client from a URI, the options every store collection is opened
 * with, and the indexes the stores' guarantees rest on. The stores only take a `Db`: whoever connects
 * owns the client and closes it.
 */
import {
  MongoClient,
  MongoServerError,
  type CollectionOptions,
  type Db,
  type IndexDescription,
} from 'mongodb';

/** The default collection names under the configured database. */
export const COLLECTIONS = { keys: 'keys', usage: 'usage', tasks: 'tasks' } as const;
export type StoreName = keyof typeof COLLECTIONS;

/**
 * How long a write waits for the majority's acknowledgement: with the majority lost it fails (and the
 * client gets 503 store_unavailable) instead of waiting for minutes. The write may still apply later,
 * which every store write tolerates: inserts carry their own `_id`, changes are conditional.
 */
export const WRITE_WAIT_MS = 5_000;
/** How long an operation waits for a connection from the pool, so a stalled server cannot grow a queue. */
export const POOL_WAIT_MS = 5_000;
const MAJORITY = { w: 'majority', journal: true, wtimeoutMS: WRITE_WAIT_MS } as const;

/**
 * Set on each store's collection, whatever the client was built with: an acknowledged write survives the
 * loss of the primary (majority, journaled), a read never sees a write that could still be rolled back,
 * and an `undefined` field is left out (as JSON.stringify does in the embedded stores) instead of stored
 * as null.
 */
export const STORE_COLLECTION_OPTIONS: CollectionOptions = {
  writeConcern: MAJORITY,
  readConcern: { level: 'majority' },
  ignoreUndefined: true,
};

/**
 * Indexes by store. Each store's `open` creates its own (creating an existing index is a no-op), since
 * the atomic conditions depend on them; `createStoreIndexes` does all of them at once for a deploy step.
 */
export const STORE_INDEXES: Readonly<Record<StoreName, readonly IndexDescription[]>> = {
  keys: [
    { key: { id: 1 }, name: 'id_unique', unique: true },
    { key: { hash: 1 }, name: 'hash_unique', unique: true },
  ],
  usage: [
    // `once` records are unique by id; plain records (client-chosen request ids) are not in this index.
    { key: { id: 1 }, name: 'once_id_unique', unique: true, partialFilterExpression: { once: true } },
    { key: { id: 1, _id: 1 }, name: 'id_then_order' },
    { key: { key_id: 1, _id: 1 }, name: 'key_then_order' },
    // `summary`: the time range, and the group's fields read from the index.
    { key: { created_at: 1, key_id: 1, model: 1 }, name: 'created_at_key_model' },
  ],
  tasks: [
    // `idempotency.key`, not `idempotency`: a task without a key holds `idempotency: null`, which
    // `$exists` would still match, so every keyless task of one API key would collide.
    {
      key: { key_id: 1, 'idempotency.key': 1 },
      name: 'idempotency_unique',
      unique: true,
      partialFilterExpression: { 'idempotency.key': { $exists: true } },
    },
    // `due` and `countByStatus`: the status prefix keeps finished tasks (most of the collection over
    // time) out of the scan for due work.
    { key: { status: 1, billed: 1, next_poll_at: 1 }, name: 'status_billed_next_poll' },
    // `page`, newest first: all tasks, or those of one status.
    { key: { created_at: -1, _id: -1 }, name: 'created_at_id' },
    { key: { status: 1, created_at: -1, _id: -1 }, name: 'status_created_at_id' },
  ],
};

export interface MongoConnectOptions {
  /** How long an operation waits for a usable server before failing (default 10 s). */
  readonly serverSelectionTimeoutMS?: number;
  readonly appName?: string;
}

/** A connected client. Timeouts are finite so a lost server fails requests instead of hanging them. */
export async function connectMongo(uri: string, options: MongoConnectOptions = {}): Promise<MongoClient> {
  const client = new MongoClient(uri, {
    appName: options.appName ?? 'model-gateway',
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 10_000,
    connectTimeoutMS: 10_000,
    // Above the change streams' awaitData wait (1 s) and an ordinary index build on startup.
    socketTimeoutMS: 60_000,
    retryWrites: true,
    retryReads: true,
    // Per stage, not the client-wide timeoutMS (a no-op since driver 7.8, and it would end idle change streams).
    waitQueueTimeoutMS: POOL_WAIT_MS,
    writeConcern: MAJORITY,
    readConcern: { level: 'majority' },
    ignoreUndefined: true,
  });
  await client.connect();
  return client;
}

/** Creates the indexes of the named stores' collections (all three by default). */
export async function createStoreIndexes(
  db: Db,
  names: Partial<Record<StoreName, string>> = COLLECTIONS,
): Promise<void> {
  for (const [store, collection] of Object.entries(names) as [StoreName, string][]) {
    await db.collection(collection).createIndexes([...STORE_INDEXES[store]]);
  }
}

/** True for a duplicate-key error (code 11000), from a unique index or `_id`. */
export const isDuplicateKey = (e: unknown): boolean => e instanceof MongoServerError && e.code === 11000;
