/**
 * The indexes the MongoDB stores rest on, built by a deploy step (`npm run stores -- indexes`) and only
 * checked when a gateway starts: a build at start-up could crash-loop every instance (a changed
 * definition, a new unique index over duplicates, a build waiting on a voting member that is down).
 * The retention periods are TTL indexes, so they are part of the same definitions.
 */
import { MongoServerError, type Db, type Document, type IndexDescription } from 'mongodb';
import { COLLECTIONS, type StoreName } from './connect';

/** How long finished data is kept; 0 keeps it for good. */
export interface StoreRetention {
  /** A task that needs no more work, counted from its last change (`done_on`). */
  readonly tasksMs: number;
  /** A usage record, counted from when it was written (`created_on`). */
  readonly usageMs: number;
  /** An audit record, counted from when it was written (`on`). */
  readonly auditMs: number;
}

export const KEEP_FOREVER: StoreRetention = { tasksMs: 0, usageMs: 0, auditMs: 0 };

/** The TTL index of each store that has one, and the setting that sets it (for messages). */
const TTL_INDEXES: Partial<Record<StoreName, { name: string; field: string; setting: string }>> = {
  tasks: { name: 'done_on_ttl', field: 'done_on', setting: 'storage.task_retention' },
  usage: { name: 'created_on_ttl', field: 'created_on', setting: 'storage.usage_retention' },
  audit: { name: 'on_ttl', field: 'on', setting: 'audit.retention' },
};

const FIXED_INDEXES: Readonly<Record<StoreName, readonly IndexDescription[]>> = {
  keys: [
    { key: { id: 1 }, name: 'id_unique', unique: true },
    { key: { hash: 1 }, name: 'hash_unique', unique: true },
  ],
  teams: [
    { key: { id: 1 }, name: 'id_unique', unique: true },
    // `list` reads teams in name order over it, too.
    { key: { name: 1 }, name: 'name_unique', unique: true },
  ],
  usage: [
    // `once` records are unique by id; plain records (client-chosen request ids) are not in this index.
    { key: { id: 1 }, name: 'once_id_unique', unique: true, partialFilterExpression: { once: true } },
    { key: { id: 1, _id: 1 }, name: 'id_then_order' },
    { key: { key_id: 1, _id: 1 }, name: 'key_then_order' },
    // `summary`: the time range, and the group's fields read from the index.
    { key: { created_at: 1, key_id: 1, model: 1 }, name: 'created_at_key_model' },
    // A team's records over a range (its spend, `summary` and `list` by team); records of keys without a
    // team, most of them in many deployments, stay out of it.
    {
      key: { team_id: 1, created_at: 1 },
      name: 'team_created_at',
      partialFilterExpression: { team_id: { $exists: true } },
    },
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
    // `due`, and `countByStatus` (a count per status, read from the index alone): the status prefix
    // keeps finished tasks (most of the collection over time) out of the scan for due work.
    { key: { status: 1, billed: 1, next_poll_at: 1 }, name: 'status_billed_next_poll' },
    // `page`, newest first: all tasks, or those of one status.
    { key: { created_at: -1, _id: -1 }, name: 'created_at_id' },
    { key: { status: 1, created_at: -1, _id: -1 }, name: 'status_created_at_id' },
  ],
  admin_tokens: [
    { key: { id: 1 }, name: 'id_unique', unique: true },
    { key: { hash: 1 }, name: 'hash_unique', unique: true },
  ],
  // Newest first, all records or those of one actor, target or action (`at` ranges ride on `id` order).
  audit: [
    { key: { id: -1 }, name: 'id_unique', unique: true },
    { key: { 'actor.id': 1, id: -1 }, name: 'actor_then_id' },
    { key: { 'target.id': 1, id: -1 }, name: 'target_then_id' },
    { key: { action: 1, id: -1 }, name: 'action_then_id' },
  ],
  files: [
    // `page`: one key's files newest first, all of them or those of one purpose.
    { key: { key_id: 1, created_at: -1, _id: -1 }, name: 'key_created_at_id' },
    { key: { key_id: 1, purpose: 1, created_at: -1, _id: -1 }, name: 'key_purpose_created_at_id' },
    // Each file carries its own expiry (`expires_on`, none when kept): deleted at that time, whatever the
    // configured retention, so the period is fixed.
    { key: { expires_on: 1 }, name: 'expires_on_ttl', expireAfterSeconds: 0 },
  ],
  // The files' content in GridFS (written by file-contents.ts, not the driver's upload stream, so the
  // driver builds none of these itself): what the purge of expired content reads, and the chunks' own
  // index, under the name the driver would give it.
  file_contents: [{ key: { 'metadata.expires_on': 1 }, name: 'expires_on' }],
  file_chunks: [{ key: { files_id: 1, n: 1 }, name: 'files_id_1_n_1', unique: true }],
  // The first write per line wins: a second insert of a line is a duplicate key.
  batch_lines: [{ key: { batch_id: 1, index: 1 }, name: 'batch_index_unique', unique: true }],
};

const RETENTION_OF: Partial<Record<StoreName, keyof StoreRetention>> = {
  tasks: 'tasksMs',
  usage: 'usageMs',
  audit: 'auditMs',
};

const retentionOf = (store: StoreName, retention: StoreRetention): number => {
  const field = RETENTION_OF[store];
  return field ? retention[field] : 0;
};

/** The indexes a store needs under the given retention (a TTL index only where data expires). */
export function storeIndexes(store: StoreName, retention: StoreRetention): IndexDescription[] {
  const ttl = TTL_INDEXES[store];
  const ms = retentionOf(store, retention);
  const expiring =
    ttl && ms > 0
      ? [{ key: { [ttl.field]: 1 }, name: ttl.name, expireAfterSeconds: Math.max(1, Math.round(ms / 1000)) }]
      : [];
  return [...FIXED_INDEXES[store], ...expiring];
}

/** What a collection's indexes lack, against what the store needs. */
export interface IndexPlan {
  readonly store: StoreName;
  readonly collection: string;
  readonly create: IndexDescription[];
  /** TTL indexes whose period changes (collMod, no rebuild). */
  readonly retime: { readonly name: string; readonly seconds: number }[];
  /** TTL indexes of a retention turned off. */
  readonly drop: string[];
  /** Differences the deploy step does not settle itself (an operator decides), as sentences. */
  readonly conflicts: string[];
  /** Every difference, as sentences. */
  readonly problems: string[];
}

const describe = (index: IndexDescription | Document): string =>
  [
    JSON.stringify(index.key),
    index.unique ? 'unique' : '',
    index.partialFilterExpression ? `partial ${JSON.stringify(index.partialFilterExpression)}` : '',
  ]
    .filter(Boolean)
    .join(' ');

/** Same keys in the same order, same uniqueness and partial filter; the TTL period is compared apart. */
const sameDefinition = (have: Document, want: IndexDescription): boolean => describe(have) === describe(want);

/** Compares a collection's indexes (as `listIndexes` gives them) with what the store needs. */
export function planIndexes(
  store: StoreName,
  collection: string,
  existing: readonly Document[],
  retention: StoreRetention,
): IndexPlan {
  const plan = { store, collection, create: [], retime: [], drop: [], conflicts: [], problems: [] } as {
    -readonly [K in keyof IndexPlan]: IndexPlan[K];
  };
  const where = `${collection} (${store})`;
  for (const want of storeIndexes(store, retention)) {
    const have = existing.find((index) => index['name'] === want.name);
    const sameKeyElsewhere = existing.find(
      (index) => index['name'] !== want.name && JSON.stringify(index['key']) === JSON.stringify(want.key),
    );
    if (!have && sameKeyElsewhere) {
      plan.conflicts.push(
        `${where}: index ${String(sameKeyElsewhere['name'])} has the keys of ${want.name} (${describe(want)}) ` +
          `under another name; drop it and run the deploy step again`,
      );
    } else if (!have) {
      plan.create.push(want);
      plan.problems.push(`${where}: index ${want.name} is missing (${describe(want)})`);
    } else if (!sameDefinition(have, want)) {
      plan.conflicts.push(
        `${where}: index ${want.name} is ${describe(have)}, the gateway needs ${describe(want)}; ` +
          `drop it and run the deploy step again`,
      );
    } else if (
      want.expireAfterSeconds !== undefined &&
      have['expireAfterSeconds'] !== want.expireAfterSeconds
    ) {
      // A retention's TTL index names its setting; a fixed one (files: each document's own expiry) the gateway.
      const asker = TTL_INDEXES[store]?.setting ?? 'the gateway';
      plan.retime.push({ name: want.name!, seconds: want.expireAfterSeconds });
      plan.problems.push(
        `${where}: index ${want.name} deletes after ${String(have['expireAfterSeconds'])} s, ` +
          `${asker} asks ${want.expireAfterSeconds} s`,
      );
    }
  }
  const ttl = TTL_INDEXES[store];
  if (ttl && retentionOf(store, retention) === 0 && existing.some((index) => index['name'] === ttl.name)) {
    plan.drop.push(ttl.name);
    plan.problems.push(`${where}: index ${ttl.name} deletes data, and ${ttl.setting} asks to keep it`);
  }
  plan.problems.push(...plan.conflicts);
  return plan;
}

/** The collection's indexes; none when it does not exist yet. */
async function listIndexes(db: Db, collection: string): Promise<Document[]> {
  try {
    return await db.collection(collection).indexes();
  } catch (e) {
    if (e instanceof MongoServerError && e.code === 26) return []; // NamespaceNotFound
    throw e;
  }
}

export type StoreCollections = Partial<Record<StoreName, string>>;

/** Each store's plan against its collection as it is now. */
export async function planStoreIndexes(
  db: Db,
  retention: StoreRetention,
  collections: StoreCollections = COLLECTIONS,
): Promise<IndexPlan[]> {
  const entries = Object.entries(collections) as [StoreName, string][];
  return Promise.all(
    entries.map(async ([store, collection]) =>
      planIndexes(store, collection, await listIndexes(db, collection), retention),
    ),
  );
}

/**
 * The deploy step: creates what is missing, changes TTL periods and drops the TTL index of a retention
 * turned off. Conflicts are left for an operator (dropping a unique index under a live gateway would
 * lift the guarantee it gives) and returned. Creating an index that exists as defined is a no-op, so
 * the step may run on every deploy and from several places at once.
 */
export async function buildStoreIndexes(
  db: Db,
  retention: StoreRetention,
  collections: StoreCollections = COLLECTIONS,
): Promise<IndexPlan[]> {
  const plans = await planStoreIndexes(db, retention, collections);
  for (const plan of plans) {
    const collection = db.collection(plan.collection);
    if (plan.create.length > 0) await collection.createIndexes(plan.create);
    for (const { name, seconds } of plan.retime) {
      await db.command({ collMod: plan.collection, index: { name, expireAfterSeconds: seconds } });
    }
    for (const name of plan.drop) await collection.dropIndex(name);
  }
  return plans;
}

/** Thrown at start-up when the indexes are not as the stores need them. */
export class StoreIndexesNotReady extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      `the MongoDB indexes are not as the gateway needs them:\n  - ${problems.join('\n  - ')}\n` +
        `Build them with \`npm run stores -- indexes\` (docs/operations.md: "MongoDB: the deploy step"), then start again.`,
    );
    this.name = 'StoreIndexesNotReady';
  }
}

/** Checks, without changing anything, that every store's indexes are in place. */
export async function checkStoreIndexes(
  db: Db,
  retention: StoreRetention,
  collections: StoreCollections = COLLECTIONS,
): Promise<void> {
  const problems = (await planStoreIndexes(db, retention, collections)).flatMap((plan) => plan.problems);
  if (problems.length > 0) throw new StoreIndexesNotReady(problems);
}
