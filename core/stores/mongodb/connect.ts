/**
 * The MongoDB side of the stores: a client from a URI, and the options every store collection is opened
 * with (the indexes are store-indexes.ts). The stores only take a `Db`: whoever connects owns the
 * client and closes it.
 */
import { MongoClient, MongoServerError, type CollectionOptions } from 'mongodb';
import type { Logger } from 'pino';

/** The GridFS bucket of the files' content: its collections are `<bucket>.files` and `<bucket>.chunks`. */
export const FILE_BUCKET = 'file_contents';

/** The default collection names under the configured database. */
export const COLLECTIONS = {
  keys: 'keys',
  usage: 'usage',
  tasks: 'tasks',
  admin_tokens: 'admin_tokens',
  audit: 'audit',
  teams: 'teams',
  files: 'files',
  file_contents: `${FILE_BUCKET}.files`,
  file_chunks: `${FILE_BUCKET}.chunks`,
  batch_lines: 'batch_lines',
} as const;
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

/** How a store is opened over a database: its collection (tests use several) and where it logs. */
export interface MongoStoreOptions {
  readonly collection?: string;
  readonly logger?: Logger;
}

export interface MongoConnectOptions {
  /** How long an operation waits for a usable server before failing (default 10 s). */
  readonly serverSelectionTimeoutMS?: number;
  readonly appName?: string;
  /** Where the URI was configured (`storage.uri`), named when the server cannot be reached. */
  readonly setting?: string;
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
  try {
    await client.connect();
  } catch (e) {
    await client.close().catch(() => undefined);
    const from = options.setting ? ` (the storage URI, ${options.setting})` : '';
    throw new Error(`cannot reach MongoDB at ${withoutSecrets(uri)}${from}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  return client;
}

/**
 * The URI as it may be logged: the user name kept, the password and the query (which may hold
 * credentials too, e.g. `tlsCertificateKeyFilePassword`) left out.
 */
export function withoutSecrets(uri: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/)(?:([^:@/]*)(?::[^@/]*)?@)?([^/?]*)(\/[^?]*)?/.exec(uri);
  if (!match) return '(not a mongodb:// URI)';
  const [, scheme, user, hosts, path] = match;
  return `${scheme}${user ? `${user}:***@` : ''}${hosts}${path ?? ''}`;
}

/** True for a duplicate-key error (code 11000), from a unique index or `_id`. */
export const isDuplicateKey = (e: unknown): boolean => e instanceof MongoServerError && e.code === 11000;
