/**
 * Keys in memory, journaled to `keys.jsonl` under the data directory (RecordJournal: a line per change,
 * compacted in the background; an old keys.json is converted at open). Pages are read from B+ trees in
 * id order, of all keys and of each team's, from the cursor on: a page costs its own keys, not a sort of
 * every key, and a new key costs a tree insert, not a move of every id after it in one sorted array.
 * Only the gateway process writes the journal; the CLI goes through the admin API.
 */
import { type KeyChange, type KeyPageQuery, type KeyRecord, type KeyStore, keyStatus } from '../key-store';
import type { StoreHealth } from '../store-health';
import BTree from 'sorted-btree';
import { RecordJournal, type JournalOptions } from './record-journal';

/** keys.json, as the store wrote it before the journal. */
const LEGACY = {
  name: 'keys.json',
  records: (content: unknown) => (content as { keys?: KeyRecord[] } | null)?.keys ?? [],
};

/** What a search (`q`) is matched against: the id and the description, lower-cased once per change. */
interface Searchable {
  readonly id: string;
  readonly description: string;
}

export class EmbeddedKeyStore implements KeyStore {
  private readonly byId = new Map<string, KeyRecord>();
  private readonly byHash = new Map<string, KeyRecord>();
  /** Every key by id, in id order. */
  private readonly ordered = new BTree<string, KeyRecord>();
  /** Each team's keys by id, in id order. */
  private readonly byTeam = new Map<string, BTree<string, KeyRecord>>();
  private readonly searchable = new Map<string, Searchable>();
  private journal!: RecordJournal<KeyRecord>;

  static async open(dataDir: string, options?: JournalOptions): Promise<EmbeddedKeyStore> {
    const store = new EmbeddedKeyStore();
    const { journal, records } = await RecordJournal.open<KeyRecord>(dataDir, 'keys', {
      live: () => store.byId,
      legacy: LEGACY,
      options,
    });
    store.journal = journal;
    for (const record of records) store.index(record);
    return store;
  }

  async insert(record: KeyRecord): Promise<void> {
    if (this.byId.has(record.id)) throw new Error(`key id ${record.id} already exists`);
    this.index(record);
    await this.journal.put(record);
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

  /**
   * Reads on from the cursor in the tree of the team (or of all keys) until the page is full. A search
   * reads the search texts instead, in one pass, and pages through the few keys it finds.
   */
  page(query: KeyPageQuery): Promise<KeyRecord[]> {
    const index = query.team_id === undefined ? this.ordered : this.byTeam.get(query.team_id);
    if (!index || query.limit <= 0) return Promise.resolve([]);
    const now = Date.parse(query.now);
    const keep = (key: KeyRecord): boolean =>
      query.status === undefined || keyStatus(key, now) === query.status;
    const page: KeyRecord[] = [];
    const candidates = query.q === undefined ? index.entries(query.after) : this.found(query.q, query.after);
    for (const [id, key] of candidates) {
      if (id === query.after) continue; // the cursor: the last key of the page before
      if (!keep(key) || !index.has(id)) continue; // of another status, or a find outside the team
      if (page.push(key) >= query.limit) break;
    }
    return Promise.resolve(page);
  }

  /** The keys whose id or description holds `q` (any case), after the cursor, in id order. */
  private found(q: string, after: string | undefined): [string, KeyRecord][] {
    const needle = q.toLowerCase();
    const found: [string, KeyRecord][] = [];
    for (const [id, text] of this.searchable) {
      if (after !== undefined && id <= after) continue;
      if (text.id.includes(needle) || text.description.includes(needle)) found.push([id, this.byId.get(id)!]);
    }
    return found.sort(([a], [b]) => (a < b ? -1 : 1));
  }

  async update(id: string, change: KeyChange): Promise<KeyRecord | undefined> {
    const current = this.byId.get(id);
    if (!current) return undefined;
    const merged: Record<string, unknown> = { ...current, ...change };
    // A field given as undefined is removed, as the MongoDB store `$unset`s it.
    for (const [field, value] of Object.entries(change)) if (value === undefined) delete merged[field];
    const next = merged as unknown as KeyRecord;
    this.unindex(current);
    this.index(next); // in its place in `byId`: listed where it was first put
    await this.journal.put(next);
    return next;
  }

  async delete(id: string): Promise<KeyRecord | undefined> {
    const current = this.byId.get(id);
    if (!current) return undefined;
    this.unindex(current);
    this.byId.delete(id);
    await this.journal.delete(id);
    return current;
  }

  /** Failing from a failed write of keys.jsonl until what memory holds is on disk again. */
  health(): StoreHealth {
    return this.journal.health();
  }

  async close(): Promise<void> {
    await this.journal.settled();
  }

  private index(record: KeyRecord): void {
    const { id, team_id } = record;
    this.byId.set(id, record);
    this.byHash.set(record.hash, record);
    this.ordered.set(id, record);
    if (team_id !== undefined) this.teamIndex(team_id).set(id, record);
    this.searchable.set(id, { id: id.toLowerCase(), description: record.description.toLowerCase() });
  }

  /** Drops the record from the indexes; `byId` keeps its place, for `index` of its next version. */
  private unindex(record: KeyRecord): void {
    const { id, team_id } = record;
    this.byHash.delete(record.hash);
    this.ordered.delete(id);
    if (team_id !== undefined) this.byTeam.get(team_id)?.delete(id);
    this.searchable.delete(id);
  }

  private teamIndex(teamId: string): BTree<string, KeyRecord> {
    let keys = this.byTeam.get(teamId);
    if (!keys) this.byTeam.set(teamId, (keys = new BTree()));
    return keys;
  }
}
