/**
 * Keys in memory, journaled to `keys.jsonl` under the data directory (RecordJournal: a line per change,
 * compacted in the background; an old keys.json is converted at open). Pages are read from indexes kept
 * in id order, all keys and each team's, so a page costs its own keys, not a sort of every key.
 * Only the gateway process writes the journal; the CLI goes through the admin API.
 */
import { type KeyChange, type KeyPageQuery, type KeyRecord, type KeyStore, keyStatus } from '../key-store';
import type { StoreHealth } from '../store-health';
import { RecordJournal, type JournalOptions } from './record-journal';
import { SortedIds } from './sorted-ids';

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
  private ordered = SortedIds.of();
  private readonly byTeam = new Map<string, SortedIds>();
  private readonly searchable = new Map<string, Searchable>();
  private journal!: RecordJournal<KeyRecord>;

  static async open(dataDir: string, options?: JournalOptions): Promise<EmbeddedKeyStore> {
    const store = new EmbeddedKeyStore();
    const { journal, records } = await RecordJournal.open<KeyRecord>(dataDir, 'keys', {
      live: () => store.byId.values(),
      legacy: LEGACY,
      options,
    });
    store.journal = journal;
    for (const record of records) store.index(record, false);
    store.ordered = SortedIds.of(store.byId.keys());
    for (const [team, ids] of teamsOf(records)) store.byTeam.set(team, SortedIds.of(ids));
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

  /** Reads on from the cursor in the index of the team (or of all keys) until the page is full. */
  page(query: KeyPageQuery): Promise<KeyRecord[]> {
    const now = Date.parse(query.now);
    const q = query.q?.toLowerCase();
    const index = query.team_id === undefined ? this.ordered : this.byTeam.get(query.team_id);
    const page: KeyRecord[] = [];
    if (!index || query.limit <= 0) return Promise.resolve(page);
    for (const id of index.after(query.after)) {
      const key = this.byId.get(id)!;
      if (query.status !== undefined && keyStatus(key, now) !== query.status) continue;
      if (q !== undefined && !this.matches(id, q)) continue;
      if (page.push(key) >= query.limit) break;
    }
    return Promise.resolve(page);
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
    this.ordered.delete(id);
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

  private matches(id: string, q: string): boolean {
    const text = this.searchable.get(id)!;
    return text.id.includes(q) || text.description.includes(q);
  }

  /** `ordered`: also in the id-ordered indexes (which `open` builds at once, sorted). */
  private index(record: KeyRecord, ordered = true): void {
    const { id, team_id } = record;
    this.byId.set(id, record);
    this.byHash.set(record.hash, record);
    this.searchable.set(id, { id: id.toLowerCase(), description: record.description.toLowerCase() });
    if (!ordered) return;
    this.ordered.add(id);
    if (team_id !== undefined) this.teamIndex(team_id).add(id);
  }

  /** Drops what `index` derived from the record's fields; its id stays in `byId` and `ordered`. */
  private unindex(record: KeyRecord): void {
    const { id, team_id } = record;
    this.byHash.delete(record.hash);
    if (team_id !== undefined) this.byTeam.get(team_id)?.delete(id);
    this.searchable.delete(id);
  }

  private teamIndex(teamId: string): SortedIds {
    let ids = this.byTeam.get(teamId);
    if (!ids) this.byTeam.set(teamId, (ids = SortedIds.of()));
    return ids;
  }
}

/** Each team's key ids. */
function teamsOf(records: readonly KeyRecord[]): Map<string, string[]> {
  const teams = new Map<string, string[]>();
  for (const { id, team_id } of records) {
    if (team_id === undefined) continue;
    const ids = teams.get(team_id);
    if (ids) ids.push(id);
    else teams.set(team_id, [id]);
  }
  return teams;
}
