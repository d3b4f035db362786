/** What the store contract suites share: openers that close what they open, MongoDB test databases, waiting. */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Db } from 'mongodb';
import pino, { type Logger } from 'pino';
import { connectMongo, type StoreName } from '../../core/stores/mongodb/connect';
import {
  buildStoreIndexes,
  KEEP_FOREVER,
  type StoreRetention,
} from '../../core/stores/mongodb/store-indexes';
import type { Teardown } from './gateway';

/** Opens a store over one storage; each call opens another store over the same storage (a reopen). */
export type Opener<S> = () => Promise<S>;

/** Opens stores with `open` and closes them at the test's end (a store the test closed itself included). */
export function closingAtEnd<S extends { close(): Promise<void> }>(
  t: Teardown,
  open: () => Promise<S>,
): Opener<S> {
  return async () => {
    const store = await open();
    t.teardown(() => store.close().catch(() => undefined));
    return store;
  };
}

export const MONGODB_URI = process.env.MONGODB_URI;
export const NO_MONGODB = 'MONGODB_URI is not set: no MongoDB server here';

/** A fresh database on MONGODB_URI, dropped (and the client closed) at the test's end. */
export async function mongoTestDb(t: Teardown, uri: string): Promise<Db> {
  const client = await connectMongo(uri, { serverSelectionTimeoutMS: 5_000 });
  const db = client.db(`gateway_test_${process.pid}_${randomBytes(4).toString('hex')}`);
  t.teardown(async () => {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });
  return db;
}

/**
 * Distinct collections of one store within a test database, each with the store's indexes built as the
 * deploy step builds them (`npm run stores -- indexes`).
 */
export const indexedCollections = (
  db: Db,
  store: StoreName,
  retention: StoreRetention = KEEP_FOREVER,
): (() => Promise<string>) => {
  let n = 0;
  return async () => {
    const collection = `${store}_${++n}`;
    await buildStoreIndexes(db, retention, { [store]: collection });
    return collection;
  };
};

/** Usage store options for tests: small batches (bursts go out in several writes) and quick retries. */
export const TEST_USAGE_WRITES = {
  flushEveryMs: 20,
  maxBatch: 8,
  maxQueued: 16,
  retryFirstMs: 10,
  retryMaxMs: 80,
  rotateBytes: 64 * 1024 * 1024,
};

export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** A logger that keeps what it logs, to check what is logged and how often. */
export function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => lines.push(JSON.parse(s) as LogLine) });
  return { logger, lines };
}

/** The records a store's journal (`keys.jsonl`…) holds as of its last line, read as the file says. */
export async function journalRecords<T extends { id: string }>(file: string): Promise<T[]> {
  const records = new Map<string, T>();
  for (const line of (await readFile(file, 'utf8')).split('\n').filter(Boolean)) {
    const change = JSON.parse(line) as { put?: T; delete?: string };
    if (change.put) records.set(change.put.id, change.put);
    else if (change.delete) records.delete(change.delete);
  }
  return [...records.values()];
}
