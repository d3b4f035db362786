/**
 * Admin tokens in a MongoDB collection (`admin_tokens`), one document per token; `id` and `hash` are
 * unique by index (store-indexes.ts), `_id` the driver's ObjectId so `list` keeps insertion order.
 */
import type { Collection, Db } from 'mongodb';
import type { AdminTokenRecord, AdminTokenStore } from '../admin-token-store';
import { COLLECTIONS, isDuplicateKey, STORE_COLLECTION_OPTIONS, type MongoStoreOptions } from './connect';

const WITHOUT_ID = { projection: { _id: 0 } } as const;

export class MongoAdminTokenStore implements AdminTokenStore {
  private constructor(private readonly tokens: Collection<AdminTokenRecord>) {}

  static open(db: Db, options: MongoStoreOptions = {}): MongoAdminTokenStore {
    const name = options.collection ?? COLLECTIONS.admin_tokens;
    return new MongoAdminTokenStore(db.collection<AdminTokenRecord>(name, STORE_COLLECTION_OPTIONS));
  }

  async insert(record: AdminTokenRecord): Promise<void> {
    try {
      await this.tokens.insertOne({ ...record }); // a copy: the driver adds `_id` to what it inserts
    } catch (e) {
      if (!isDuplicateKey(e)) throw e;
      throw new Error(`admin token id or hash of ${record.id} already exists`);
    }
  }

  async findByHash(hash: string): Promise<AdminTokenRecord | undefined> {
    return (await this.tokens.findOne<AdminTokenRecord>({ hash }, WITHOUT_ID)) ?? undefined;
  }

  async findById(id: string): Promise<AdminTokenRecord | undefined> {
    return (await this.tokens.findOne<AdminTokenRecord>({ id }, WITHOUT_ID)) ?? undefined;
  }

  list(): Promise<AdminTokenRecord[]> {
    return this.tokens.find<AdminTokenRecord>({}, WITHOUT_ID).sort({ _id: 1 }).toArray();
  }

  async delete(id: string): Promise<AdminTokenRecord | undefined> {
    return (await this.tokens.findOneAndDelete({ id }, WITHOUT_ID)) ?? undefined;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
