/**
 * Keys in one JSON file under the data directory, held in memory and rewritten atomically on each change.
 * Only the gateway process writes it; the CLI goes through the admin API.
 */
import { join } from 'node:path';
import { type KeyChange, type KeyPageQuery, type KeyRecord, type KeyStore, keyStatus } from '../key-store';
import type { StoreHealth } from '../store-health';
import { SnapshotFile } from './snapshot-file';

interface KeyFile {
  version: 1;
  keys: KeyRecord[];
}

export class EmbeddedKeyStore implements KeyStore {
  private readonly byId = new Map<string, KeyRecord>();
  private readonly byHash = new Map<string, KeyRecord>();

  private constructor(private readonly file: SnapshotFile<KeyFile>) {}

  static async open(dataDir: string): Promise<EmbeddedKeyStore> {
    const store = new EmbeddedKeyStore(new SnapshotFile(join(dataDir, 'keys.json'), 'keys.json'));
    for (const record of (await store.file.read())?.keys ?? []) store.index(record);
    return store;
  }

  async insert(record: KeyRecord): Promise<void> {
    if (this.byId.has(record.id)) throw new Error(`key id ${record.id} already exists`);
    this.index(record);
    await this.persist();
  }

  /** One process owns the data directory, so checking and inserting without a break in between is enough. */
  async insertFirst(record: KeyRecord): Promise<boolean> {
    if (this.byId.size > 0) return false;
    await this.insert(record);
    return true;
  }

  findByHash(hash: string): Promise<KeyRecord | undefined> {
    return Promise.resolve(this.byHash.get(hash));
  }

  findById(id: string): Promise<KeyRecord | undefined> {
    return Promise.resolve(this.byId.get(id));
  }

  list(): Promise<KeyRecord[]> {
    return Promise.resolve([...this.byId.values()]);
  }

  /** Filters in memory: a key file holds thousands of keys, not millions. */
  page(query: KeyPageQuery): Promise<KeyRecord[]> {
    const now = Date.parse(query.now);
    const q = query.q?.toLowerCase();
    const matching = [...this.byId.values()]
      .filter(
        (k) =>
          (query.after === undefined || k.id > query.after) &&
          (query.status === undefined || keyStatus(k, now) === query.status) &&
          (query.team_id === undefined || k.team_id === query.team_id) &&
          (q === undefined || k.id.toLowerCase().includes(q) || k.description.toLowerCase().includes(q)),
      )
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return Promise.resolve(matching.slice(0, query.limit));
  }

  async update(id: string, change: KeyChange): Promise<KeyRecord | undefined> {
    const current = this.byId.get(id);
    if (!current) return undefined;
    const merged: Record<string, unknown> = { ...current, ...change };
    // A field given as undefined is removed, as the MongoDB store `$unset`s it.
    for (const [field, value] of Object.entries(change)) if (value === undefined) delete merged[field];
    const next = merged as unknown as KeyRecord;
    this.index(next);
    await this.persist();
    return next;
  }

  async delete(id: string): Promise<KeyRecord | undefined> {
    const current = this.byId.get(id);
    if (!current) return undefined;
    this.byId.delete(id);
    this.byHash.delete(current.hash);
    await this.persist();
    return current;
  }

  /** Failing from a failed write of keys.json until one succeeds (the next change writes the whole file). */
  health(): StoreHealth {
    return this.file.health();
  }

  async close(): Promise<void> {
    await this.file.settled();
  }

  private index(record: KeyRecord): void {
    this.byId.set(record.id, record);
    this.byHash.set(record.hash, record);
  }

  private persist(): Promise<void> {
    return this.file.write({ version: 1, keys: [...this.byId.values()] });
  }
}
