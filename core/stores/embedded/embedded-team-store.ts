/**
 * Teams in one JSON file under the data directory (teams.json), held in memory and rewritten atomically
 * on each change, like the keys (embedded-key-store.ts).
 */
import { join } from 'node:path';
import type { StoreHealth } from '../store-health';
import { type TeamChange, TeamNameTaken, type TeamRecord, type TeamStore } from '../team-store';
import { SnapshotFile } from './snapshot-file';

interface TeamFile {
  version: 1;
  teams: TeamRecord[];
}

const byName = (a: TeamRecord, b: TeamRecord): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export class EmbeddedTeamStore implements TeamStore {
  private readonly byId = new Map<string, TeamRecord>();

  private constructor(private readonly file: SnapshotFile<TeamFile>) {}

  static async open(dataDir: string): Promise<EmbeddedTeamStore> {
    const store = new EmbeddedTeamStore(new SnapshotFile(join(dataDir, 'teams.json'), 'teams.json'));
    for (const record of (await store.file.read())?.teams ?? []) store.byId.set(record.id, record);
    return store;
  }

  async insert(record: TeamRecord): Promise<void> {
    if (this.byId.has(record.id)) throw new Error(`team id ${record.id} already exists`);
    this.checkName(record.name, record.id);
    this.byId.set(record.id, record);
    await this.persist();
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
    await this.persist();
    return next;
  }

  async delete(id: string): Promise<TeamRecord | undefined> {
    const current = this.byId.get(id);
    if (!current) return undefined;
    this.byId.delete(id);
    await this.persist();
    return current;
  }

  /** Failing from a failed write of teams.json until one succeeds. */
  health(): StoreHealth {
    return this.file.health();
  }

  async close(): Promise<void> {
    await this.file.settled();
  }

  /** Names are unique, as MongoDB's unique index on `name` keeps them. */
  private checkName(name: string, id: string): void {
    for (const team of this.byId.values()) {
      if (team.name === name && team.id !== id) throw new TeamNameTaken(name);
    }
  }

  private persist(): Promise<void> {
    return this.file.write({ version: 1, teams: [...this.byId.values()] });
  }
}
