/**
 * Keys in a MongoDB collection, one document per key. `_id` is the driver's ObjectId, so `list` keeps
 * insertion order like the embedded store; `id` and `hash` are unique by index.
 */
import { type Collection, type Db, type Filter } from 'mongodb';
import { type KeyChange, type KeyPageQuery, type KeyRecord, type KeyStore } from '../key-store';
import { COLLECTIONS, isDuplicateKey, STORE_COLLECTION_OPTIONS, type MongoStoreOptions } from './connect';
import { toUpdate } from './field-update';

/** Documents are read without `_id`: callers get exactly a KeyRecord. */
const WITHOUT_ID = { projection: { _id: 0 } } as const;

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The page query as a filter. `expires_at` is stored as `Date#toISOString`, so comparing strings
 * compares times; a cleared expiry is `$unset`, never null.
 */
function pageFilter(query: KeyPageQuery): Filter<KeyRecord> {
  const and: Filter<KeyRecord>[] = [];
  if (query.after !== undefined) and.push({ id: { $gt: query.after } });
  const live: Filter<KeyRecord> = {
    $or: [{ expires_at: { $exists: false } }, { expires_at: { $gt: query.now } }],
  };
  if (query.team_id !== undefined) and.push({ team_id: query.team_id });
  if (query.status === 'expired') and.push({ expires_at: { $lte: query.now } });
  if (query.status === 'enabled') and.push({ enabled: true }, live);
  if (query.status === 'disabled') and.push({ enabled: false }, live);
  if (query.q !== undefined) {
    const pattern = { $regex: escapeRegex(query.q), $options: 'i' };
    and.push({ $or: [{ id: pattern }, { description: pattern }] });
  }
  return and.length > 0 ? { $and: and } : {};
}

/** The claim on creating the first key: one document with a fixed `_id`, so only one insert can succeed. */
interface FirstKeyClaim {
  _id: 'first-key';
  id: string;
  at: string;
}

export class MongoKeyStore implements KeyStore {
  private constructor(
    private readonly keys: Collection<KeyRecord>,
    private readonly claims: Collection<FirstKeyClaim>,
  ) {}

  /** Over the collection as it is: its indexes are built by the deploy step (store-indexes.ts). */
  static open(db: Db, options: MongoStoreOptions = {}): MongoKeyStore {
    const collectionName = options.collection ?? COLLECTIONS.keys;
    const keys = db.collection<KeyRecord>(collectionName, STORE_COLLECTION_OPTIONS);
    const claims = db.collection<FirstKeyClaim>(`${collectionName}_claims`, STORE_COLLECTION_OPTIONS);
    return new MongoKeyStore(keys, claims);
  }

  async insert(record: KeyRecord): Promise<void> {
    try {
      await this.keys.insertOne({ ...record }); // a copy: the driver adds `_id` to what it inserts
    } catch (e) {
      if (!isDuplicateKey(e)) throw e;
      // Read as the primary has it: the key that caused the error may not be majority-committed yet.
      const taken = await this.keys.countDocuments(
        { id: record.id },
        { limit: 1, readConcern: { level: 'local' }, readPreference: 'primary' },
      );
      throw new Error(
        taken ? `key id ${record.id} already exists` : `key hash of ${record.id} already exists`,
      );
    }
  }

  async insertFirst(record: KeyRecord): Promise<boolean> {
    if ((await this.keys.countDocuments({}, { limit: 1 })) > 0) return false;
    try {
      await this.claims.insertOne({ _id: 'first-key', id: record.id, at: new Date().toISOString() });
    } catch (e) {
      if (isDuplicateKey(e)) return false; // another instance claimed it first
      throw e;
    }
    await this.insert(record);
    return true;
  }

  async findByHash(hash: string): Promise<KeyRecord | undefined> {
    return (await this.keys.findOne<KeyRecord>({ hash }, WITHOUT_ID)) ?? undefined;
  }

  async findById(id: string): Promise<KeyRecord | undefined> {
    return (await this.keys.findOne<KeyRecord>({ id }, WITHOUT_ID)) ?? undefined;
  }

  list(): Promise<KeyRecord[]> {
    return this.keys.find<KeyRecord>({}, WITHOUT_ID).sort({ _id: 1 }).toArray();
  }

  /** Sorted by `id` over its unique index, so each page reads at most `limit` matching documents in order. */
  page(query: KeyPageQuery): Promise<KeyRecord[]> {
    return this.keys
      .find<KeyRecord>(pageFilter(query), WITHOUT_ID)
      .sort({ id: 1 })
      .limit(query.limit)
      .toArray();
  }

  async update(id: string, change: KeyChange): Promise<KeyRecord | undefined> {
    const update = toUpdate<KeyRecord>(change);
    if (!update) return this.findById(id);
    const updated = await this.keys.findOneAndUpdate({ id }, update, {
      ...WITHOUT_ID,
      returnDocument: 'after',
    });
    return updated ?? undefined;
  }

  async delete(id: string): Promise<KeyRecord | undefined> {
    return (await this.keys.findOneAndDelete({ id }, WITHOUT_ID)) ?? undefined;
  }

  /** Nothing to release: the client belongs to whoever connected it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
