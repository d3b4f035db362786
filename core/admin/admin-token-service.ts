/**
 * Admin tokens made with `POST /admin/tokens`: creation, listing, revocation, and the lookup each admin
 * call makes. Lookups go through a short-lived lru-cache keyed by the token's hash; a revocation is
 * announced as an event (the key events' mechanism on its own channel, core/keys/key-events.ts) that
 * evicts the token here at once and on other instances within a pub/sub hop (the TTL bounds a lost one).
 */
import type { LRUCache } from 'lru-cache';
import { lookupCache } from '../base/lookup-cache';
import { KeyHasher } from '../keys/api-key';
import type { KeyEvents } from '../keys/key-events';
import type { AdminTokenRecord, AdminTokenRole, AdminTokenStore } from '../stores/admin-token-store';
import { generateAdminToken, looksLikeAdminToken } from './admin-token-format';

/** The channel admin token events travel on between instances. */
export const ADMIN_TOKEN_EVENTS_CHANNEL = 'admin-tokens:changed';

export interface AdminTokenCacheOptions {
  readonly cacheTtlMs: number;
  readonly cacheMax: number;
}

export interface NewAdminToken {
  readonly description: string;
  readonly role: AdminTokenRole;
  readonly team_id?: string;
}

export interface CreatedAdminToken {
  /** The full token: returned here once and never again. */
  readonly token: string;
  readonly record: AdminTokenRecord;
}

export class AdminTokenService {
  /** Known tokens by their hash. */
  private readonly cache: LRUCache<string, AdminTokenRecord>;
  /** Bumped by each eviction: a store read that began before it does not fill the cache with a stale record. */
  private generation = 0;

  constructor(
    private readonly store: AdminTokenStore,
    private readonly hasher: KeyHasher,
    options: AdminTokenCacheOptions,
    private readonly events?: KeyEvents,
  ) {
    this.cache = lookupCache(options.cacheMax, options.cacheTtlMs);
    events?.on((id) => this.evict(id));
  }

  async create(spec: NewAdminToken): Promise<CreatedAdminToken> {
    let generated = generateAdminToken();
    // Visible prefixes must stay unique (48 random bits: a clash is rare, not impossible).
    while (await this.store.findById(generated.id)) generated = generateAdminToken();
    const { token, id } = generated;
    const record: AdminTokenRecord = {
      id,
      hash: this.hasher.hash(token),
      description: spec.description,
      role: spec.role,
      ...(spec.team_id !== undefined ? { team_id: spec.team_id } : {}),
      created_at: new Date().toISOString(),
    };
    await this.store.insert(record);
    return { token, record };
  }

  list(): Promise<AdminTokenRecord[]> {
    return this.store.list();
  }

  findById(id: string): Promise<AdminTokenRecord | undefined> {
    return this.store.findById(id);
  }

  /** Deletes the token; it stops working here at once and on other instances within a pub/sub hop. */
  async revoke(id: string): Promise<AdminTokenRecord | undefined> {
    const gone = await this.store.delete(id);
    if (gone) {
      if (this.events) this.events.emit(id, 'deleted');
      else this.evict(id);
    }
    return gone;
  }

  /** The stored token `presented` is, if any. */
  async lookup(presented: string): Promise<AdminTokenRecord | undefined> {
    if (!looksLikeAdminToken(presented)) return undefined;
    const hash = this.hasher.hash(presented);
    const cached = this.cache.get(hash);
    if (cached) return cached;
    const generation = this.generation;
    const record = await this.store.findByHash(hash);
    if (!record || !KeyHasher.same(record.hash, hash)) return undefined;
    if (generation === this.generation) this.cache.set(hash, record);
    return record;
  }

  private evict(id: string): void {
    this.generation++;
    for (const [hash, record] of this.cache.entries()) if (record.id === id) this.cache.delete(hash);
  }
}
