/**
 * Key lookups for the request path and key management for the admin API, over any KeyStore.
 *
 * Lookups go through an lru-cache keyed by the presented key, so a cached key costs one map lookup and
 * no HMAC (the HMAC was a tenth of the gateway's per-request work in `npm run bench`). Entries live
 * `cache_ttl` (1 s by default), so a key disabled on another instance stops working within that time;
 * any change made through this instance clears the cache at once. A cache miss hashes the key and
 * compares hashes in constant time.
 */
import { LRUCache } from 'lru-cache';
import {
  type KeyChange,
  type KeyPageQuery,
  type KeyRecord,
  type KeyStore,
  type NewKey,
} from '../stores/key-store';
import { generateKey, KeyHasher, looksLikeKey } from './api-key';

/** Cached absence, so a flood of wrong keys does not reach the store. */
const MISSING = Symbol('missing');
type CacheEntry = KeyRecord | typeof MISSING;

export interface KeyServiceOptions {
  readonly cacheTtlMs: number;
  readonly cacheMax: number;
}

export interface CreatedKey {
  /** The full key: returned here once and never again. */
  readonly key: string;
  readonly record: KeyRecord;
}

export interface RotatedKey extends CreatedKey {
  /** The id of the key replaced. */
  readonly replaces: string;
  /** The old key as it is now (with its new expiry when one was set). */
  readonly old: KeyRecord;
}

const ROTATED_SUFFIX = / \(rotated from sk-[A-Za-z0-9_-]{8}\)$/;
const MAX_DESCRIPTION = 500;

export class KeyService {
  private readonly cache: LRUCache<string, CacheEntry>;

  constructor(
    private readonly store: KeyStore,
    private readonly hasher: KeyHasher,
    options: KeyServiceOptions,
  ) {
    this.cache = new LRUCache<string, CacheEntry>({ max: options.cacheMax, ttl: options.cacheTtlMs });
  }

  /** The record for a presented key, or undefined when the key is unknown or malformed. */
  async lookup(presented: string): Promise<KeyRecord | undefined> {
    let entry = this.cache.get(presented);
    if (entry === undefined) {
      entry = (await this.find(presented)) ?? MISSING;
      this.cache.set(presented, entry);
    }
    return entry === MISSING ? undefined : entry;
  }

  async create(spec: NewKey): Promise<CreatedKey> {
    for (;;) {
      const { key, id } = generateKey();
      if (await this.store.findById(id)) continue; // visible prefixes must stay unique
      const record: KeyRecord = {
        id,
        hash: this.hasher.hash(key),
        description: spec.description ?? '',
        enabled: true,
        allowed_models: [...(spec.allowed_models ?? [])],
        ...(spec.rate_limit_rpm !== undefined ? { rate_limit_rpm: spec.rate_limit_rpm } : {}),
        ...(spec.rate_limit_tpm !== undefined ? { rate_limit_tpm: spec.rate_limit_tpm } : {}),
        ...(spec.max_concurrent !== undefined ? { max_concurrent: spec.max_concurrent } : {}),
        ...(spec.expires_at !== undefined ? { expires_at: spec.expires_at } : {}),
        ...(spec.budget !== undefined ? { budget: { ...spec.budget } } : {}),
        created_at: new Date().toISOString(),
      };
      await this.store.insert(record);
      this.cache.clear(); // a cached "missing" must not outlive the key's creation
      return { key, record };
    }
  }

  list(): Promise<KeyRecord[]> {
    return this.store.list();
  }

  /** One page of keys in id order (see KeyStore#page). */
  page(query: KeyPageQuery): Promise<KeyRecord[]> {
    return this.store.page(query);
  }

  findById(id: string): Promise<KeyRecord | undefined> {
    return this.store.findById(id);
  }

  /**
   * A replacement for key `id` with the same settings, its description marked with the old id (an
   * earlier such mark is replaced, so rotations do not pile up). With `disableOldAfterMs`, the old key
   * expires that long from now (never later than it already would): an expiry every instance enforces,
   * rather than a timer in this one. Undefined when no key has this id.
   */
  async rotate(id: string, disableOldAfterMs?: number): Promise<RotatedKey | undefined> {
    const old = await this.store.findById(id);
    if (!old) return undefined;
    const suffix = ` (rotated from ${old.id})`;
    const base = old.description.replace(ROTATED_SUFFIX, '').slice(0, MAX_DESCRIPTION - suffix.length);
    const created = await this.create({
      description: base + suffix,
      allowed_models: old.allowed_models,
      ...(old.rate_limit_rpm !== undefined ? { rate_limit_rpm: old.rate_limit_rpm } : {}),
      ...(old.rate_limit_tpm !== undefined ? { rate_limit_tpm: old.rate_limit_tpm } : {}),
      ...(old.max_concurrent !== undefined ? { max_concurrent: old.max_concurrent } : {}),
      ...(old.expires_at !== undefined ? { expires_at: old.expires_at } : {}),
      ...(old.budget !== undefined ? { budget: old.budget } : {}),
    });
    let current: KeyRecord = old;
    if (disableOldAfterMs !== undefined) {
      const at = Date.now() + disableOldAfterMs;
      const sooner =
        old.expires_at === undefined || Date.parse(old.expires_at) > at
          ? new Date(at).toISOString()
          : undefined;
      if (sooner) current = (await this.update(id, { expires_at: sooner })) ?? old;
    }
    return { ...created, replaces: old.id, old: current };
  }

  async update(id: string, change: KeyChange): Promise<KeyRecord | undefined> {
    const record = await this.store.update(id, change);
    this.cache.clear();
    return record;
  }

  async delete(id: string): Promise<KeyRecord | undefined> {
    const record = await this.store.delete(id);
    this.cache.clear();
    return record;
  }

  async isEmpty(): Promise<boolean> {
    return (await this.store.page({ limit: 1, now: new Date().toISOString() })).length === 0;
  }

  private async find(presented: string): Promise<KeyRecord | undefined> {
    if (!looksLikeKey(presented)) return undefined;
    const hash = this.hasher.hash(presented);
    const record = await this.store.findByHash(hash);
    return record && KeyHasher.same(record.hash, hash) ? record : undefined;
  }
}
