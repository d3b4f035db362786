/**
 * The audit log in a MongoDB collection (`audit`), one document per record. `on` is `at` as a BSON date
 * for the retention's TTL index; listings sort by `id` (time order) over the query indexes of
 * store-indexes.ts.
 */
import type { Collection, Db, Filter } from 'mongodb';
import type { AuditQuery, AuditRecord, AuditStore } from '../audit-store';
import { COLLECTIONS, STORE_COLLECTION_OPTIONS, type MongoStoreOptions } from './connect';

type AuditDoc = AuditRecord & { on: Date };

/** Records are read as they were written: without `_id` and the retention's `on`. */
const AS_WRITTEN = { projection: { _id: 0, on: 0 } } as const;

function pageFilter(query: AuditQuery): Filter<AuditDoc> {
  const at: Record<string, string> = {};
  if (query.from !== undefined) at.$gte = query.from;
  if (query.to !== undefined) at.$lt = query.to;
  return {
    ...(query.before !== undefined ? { id: { $lt: query.before } } : {}),
    ...(query.actor !== undefined ? { 'actor.id': query.actor } : {}),
    ...(query.target !== undefined ? { 'target.id': query.target } : {}),
    ...(query.action !== undefined ? { action: query.action } : {}),
    ...(Object.keys(at).length > 0 ? { at } : {}),
  };
}

export class MongoAuditStore implements AuditStore {
  private constructor(private readonly records: Collection<AuditDoc>) {}

  static open(db: Db, options: MongoStoreOptions = {}): MongoAuditStore {
    const name = options.collection ?? COLLECTIONS.audit;
    return new MongoAuditStore(db.collection<AuditDoc>(name, STORE_COLLECTION_OPTIONS));
  }

  async append(record: AuditRecord): Promise<void> {
    await this.records.insertOne({ ...record, on: new Date(record.at) });
  }

  page(query: AuditQuery): Promise<AuditRecord[]> {
    return this.records
      .find<AuditRecord>(pageFilter(query), AS_WRITTEN)
      .sort({ id: -1 })
      .limit(query.limit)
      .toArray();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
