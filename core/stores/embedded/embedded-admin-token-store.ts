/**
 * Admin tokens in one JSON file under the data directory (`admin-tokens.json`), held in memory and
 * rewritten atomically on each change, as the key store does with keys.json.
 */
import { join } from 'node:path';
import type { AdminTokenRecord, AdminTokenStore } from '../admin-token-store';
import type { StoreHealth } from '../store-health';
import { SnapshotFile } from './snapshot-file';

interface TokenFile {
  version: 1;
  tokens: AdminTokenRecord[];
}

export class EmbeddedAdminTokenStore implements AdminTokenStore {
  private readonly byId = new Map<string, AdminTokenRecord>();
  private readonly byHash = new Map<string, AdminTokenRecord>();

  private constructor(private readonly file: SnapshotFile<TokenFile>) {}

  static async open(dataDir: string): Promise<EmbeddedAdminTokenStore> {
    const file = new SnapshotFile<TokenFile>(join(dataDir, 'admin-tokens.json'), 'admin-tokens.json');
    const store = new EmbeddedAdminTokenStore(file);
    for (const record of (await file.read())?.tokens ?? []) store.index(record);
    return store;
  }

  async insert(record: AdminTokenRecord): Promise<void> {
    if (this.byId.has(record.id)) throw new Error(`admin token id ${record.id} already exists`);
    if (this.byHash.has(record.hash)) throw new Error(`admin token hash of ${record.id} already exists`);
    this.index(record);
    await this.persist();
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
    await this.persist();
    return current;
  }

  health(): StoreHealth {
    return this.file.health();
  }

  async close(): Promise<void> {
    await this.file.settled().catch(() => undefined);
  }

  private index(record: AdminTokenRecord): void {
    this.byId.set(record.id, record);
    this.byHash.set(record.hash, record);
  }

  private persist(): Promise<void> {
    return this.file.write({ version: 1, tokens: [...this.byId.values()] });
  }
}
