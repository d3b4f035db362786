/**
 * Teams in memory, journaled to `teams.jsonl` under the data directory like the keys (RecordJournal; an
 * old teams.json is converted at open).
 */
import type { StoreHealth } from '../store-health';
import { type TeamChange, TeamNameTaken, type TeamRecord, type TeamStore } from '../team-store';
import { RecordJournal, type JournalOptions } from './record-journal';

/** teams.json, as the store wrote it before the journal. */
const LEGACY = {
  name: 'teams.json',
  records: (content: unknown) => (content as { teams?: TeamRecord[] } | null)?.teams ?? [],
};

const byName = (a: TeamRecord, b: TeamRecord): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export class EmbeddedTeamStore implements TeamStore {
  private readonly byId = new Map<string, TeamRecord>();
  private journal!: RecordJournal<TeamRecord>;

  static async open(dataDir: string, options?: JournalOptions): Promise<EmbeddedTeamStore> {
    const store = new EmbeddedTeamStore();
    const { journal, records } = await RecordJournal.open<TeamRecord>(dataDir, 'teams', {
      live: () => store.byId,
      legacy: LEGACY,
      options,
    });
    store.journal = journal;
    for (const record of records) store.byId.set(record.id, record);
    return store;
  }

  async insert(record: TeamRecord): Promise<void> {
    if (this.byId.has(record.id)) throw new Error(`team id ${record.id} already exists`);
    this.checkName(record.name, record.id);
    this.byId.set(record.id, record);
    await this.journal.put(record);
  }

  findById(id: string): Promise<TeamRecord | undefined> {
    return Promise.resolve(this.byId.get(id));
  }

  list(): Promise<TeamRecord[]> {
    return Promise.resolve([...this.byId.values()].sort(byName));
  }

  async update(id: string, change: TeamChange): Promise<TeamRecord | undefined> {
    const current = this.byId.get(id);
    if (!current) return undefined;
    if (change.name !== undefined) this.checkName(change.name, id);
    const merged: Record<string, unknown> = { ...current, ...change };
    // A field given as undefined is removed, as the MongoDB store `$unset`s it.
    for (const [field, value] of Object.entries(change)) if (value === undefined) delete merged[field];
    const next = merged as unknown as TeamRecord;
    this.byId.set(id, next);
    await this.journal.put(next);
    return next;
  }

  async delete(id: string): Promise<TeamRecord | undefined> {
    const current = this.byId.get(id);
    if (!current) return undefined;
    this.byId.delete(id);
    await this.journal.delete(id);
    return current;
  }

  /** Failing from a failed write of teams.jsonl until what memory holds is on disk again. */
  health(): StoreHealth {
    return this.journal.health();
  }

  async close(): Promise<void> {
    await this.journal.settled();
  }

  /** Names are unique, as MongoDB's unique index on `name` keeps them. */
  private checkName(name: string, id: string): void {
    for (const team of this.byId.values()) {
      if (team.name === name && team.id !== id) throw new TeamNameTaken(name);
    }
  }
}
