/**
 * Teams in a MongoDB collection, one document per team; `id` and `name` are unique by index
 * (store-indexes.ts), so two instances creating or renaming teams at once cannot both take a name.
 */
import { type Collection, type Db } from 'mongodb';
import { type TeamChange, TeamNameTaken, type TeamRecord, type TeamStore } from '../team-store';
import { COLLECTIONS, isDuplicateKey, STORE_COLLECTION_OPTIONS, type MongoStoreOptions } from './connect';
import { toUpdate } from './field-update';

/** Documents are read without `_id`: callers get exactly a TeamRecord. */
const WITHOUT_ID = { projection: { _id: 0 } } as const;

export class MongoTeamStore implements TeamStore {
  private constructor(private readonly teams: Collection<TeamRecord>) {}

  /** Over the collection as it is: its indexes are built by the deploy step (store-indexes.ts). */
  static open(db: Db, options: MongoStoreOptions = {}): MongoTeamStore {
    const name = options.collection ?? COLLECTIONS.teams;
    return new MongoTeamStore(db.collection<TeamRecord>(name, STORE_COLLECTION_OPTIONS));
  }

  async insert(record: TeamRecord): Promise<void> {
    try {
      await this.teams.insertOne({ ...record }); // a copy: the driver adds `_id` to what it inserts
    } catch (e) {
      if (!isDuplicateKey(e)) throw e;
      throw (await this.idTaken(record.id))
        ? new Error(`team id ${record.id} already exists`)
        : new TeamNameTaken(record.name);
    }
  }

  async findById(id: string): Promise<TeamRecord | undefined> {
    return (await this.teams.findOne<TeamRecord>({ id }, WITHOUT_ID)) ?? undefined;
  }

  /** Sorted over the unique index on `name`. */
  list(): Promise<TeamRecord[]> {
    return this.teams.find<TeamRecord>({}, WITHOUT_ID).sort({ name: 1 }).toArray();
  }

  async update(id: string, change: TeamChange): Promise<TeamRecord | undefined> {
    const update = toUpdate<TeamRecord>(change);
    if (!update) return this.findById(id);
    try {
      const updated = await this.teams.findOneAndUpdate({ id }, update, {
        ...WITHOUT_ID,
        returnDocument: 'after',
      });
      return updated ?? undefined;
    } catch (e) {
      // Only `name` can collide on an update: `id` is never changed.
      if (isDuplicateKey(e) && change.name !== undefined) throw new TeamNameTaken(change.name);
      throw e;
    }
  }

  async delete(id: string): Promise<TeamRecord | undefined> {
    return (await this.teams.findOneAndDelete({ id }, WITHOUT_ID)) ?? undefined;
  }

  /** Nothing to release: the client belongs to whoever connected it. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  /** Read as the primary has it: the record that caused a duplicate may not be majority-committed yet. */
  private async idTaken(id: string): Promise<boolean> {
    const options = { limit: 1, readConcern: { level: 'local' }, readPreference: 'primary' } as const;
    return (await this.teams.countDocuments({ id }, options)) > 0;
  }
}
