/**
 * Admin tokens in memory, journaled to `admin-tokens.jsonl` under the data directory like the keys
 * (RecordJournal; an old admin-tokens.json is converted at open).
 */
import type { AdminTokenRecord, AdminTokenStore } from '../admin-token-store';
import type { StoreHealth } from '../store-health';
import { RecordJournal, type JournalOptions } from './record-journal';

/** admin-tokens.json, as the store wrote it before the journal. */
const LEGACY = {
  name: 'admin-tokens.json',
  records: (content: unknown) => (content as { tokens?: AdminTokenRecord[] } | null)?.tokens ?? [],
};

export class EmbeddedAdminTokenStore implements AdminTokenStore {
  private readonly byId = new Map<string, AdminTokenRecord>();
  private readonly byHash = new Map<string, AdminTokenRecord>();

  private journal!: RecordJournal<AdminTokenRecord>;

  static async open(dataDir: string, options?: JournalOptions): Promise<EmbeddedAdminTokenStore> {
    const store = new EmbeddedAdminTokenStore();
    const { journal, records } = await RecordJournal.open<AdminTokenRecord>(dataDir, 'admin-tokens', {
      live: () => store.byId,
      legacy: LEGACY,
      options,
    });
    store.journal = journal;
    for (const record of records) store.index(record);
    return store;
  }

  async insert(record: AdminTokenRecord): Promise<void> {
    if (this.byId.has(record.id)) throw new Error(`admin token id ${record.id} already exists`);
    if (this.byHash.has(record.hash)) throw new Error(`admin token hash of ${record.id} already exists`);
    this.index(record);
    await this.journal.put(record);
  }

  findByHash(hash: string): Promise<AdminTokenRecord | undefined> {
    return Promise.resolve(this.byHash.get(hash));
  }

  findById(id: string): Promise<AdminTokenRecord | undefined> {
    return Promise.resolve(this.byId.get(id));
  }

  list(): Promise<AdminTokenRecord[]> {
    return Promise.resolve([...this.byId.values()]);
  }

  async delete(id: string): Promise<AdminTokenRecord | undefined> {
    const current = this.byId.get(id);
    if (!current) return undefined;
    this.byId.delete(id);
    this.byHash.delete(current.hash);
    await this.journal.delete(id);
    return current;
  }

  health(): StoreHealth {
    return this.journal.health();
  }

  async close(): Promise<void> {
    await this.journal.settled();
  }

  private index(record: AdminTokenRecord): void {
    this.byId.set(record.id, record);
    this.byHash.set(record.hash, record);
  }
}
