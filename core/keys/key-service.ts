/**
 * Key lookups for the request path and key management for the admin API, over any KeyStore.
 *
 * Lookups go through an lru-cache keyed by the presented key, so a cached key costs one map lookup and
 * no HMAC (the HMAC was a tenth of the gateway's per-request work in `npm run bench`). Entries live
 * `cache_ttl` (1 s by default). Every change made through any instance is announced as a key event
 * (key-events.ts), which evicts that key's entries here: at once for this instance's changes, within a
 * pub/sub hop for other instances' (the TTL bounds it when a message is lost).
 *
 * Unknown keys are remembered apart, by their hash, in a negative cache with the same TTL: a flood of one
 * wrong key reaches the store once per TTL, and a flood of many different wrong keys cannot evict the
 * known ones. The hash, not the text: what was presented may be a real key mistyped, and is not kept.
 *
 * Keys declared in gateway.yaml (declared-keys.ts) are looked up first, in memory, then the store; both
 * give the same KeyRecord, so every stage checks them alike. Changes go to the store only: the admin API
 * refuses them for a declared id.
 */
import type { LRUCache } from 'lru-cache';
import { lookupCache } from '../base/lookup-cache';
import {
  type KeyChange,
  type KeyPageQuery,
  type KeyRecord,
  type KeyStore,
  type NewKey,
} from '../stores/key-store';
import { generateKey, KeyHasher, keyId, looksLikeKey } from './api-key';
import type { DeclaredKeys } from './declared-keys';
import type { KeyEvents } from './key-events';
import { KnownKeyIds } from './known-key-ids';
import { token } from '../base/token';

export interface KeyServiceOptions {
  readonly cacheTtlMs: number;
  readonly cacheMax: number;
  /**
   * What the caches' TTLs are timed on (ms, monotonic): `performance.now()` unless given. A given clock
   * is read on every check (a test moves it between two lookups).
   */
  readonly clock?: () => number;
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

/** The store's key ids are listed at most this often, and only for addresses past their failed-auth limit. */
const ID_LISTING_GAP_MS = 1_000;

const ROTATED_SUFFIX = / \(rotated from sk-[A-Za-z0-9_-]{8}\)$/;
const MAX_DESCRIPTION = 500;

export class KeyService {
  /** Known keys by the presented key. */
  private readonly cache: LRUCache<string, KeyRecord>;
  /** The presented keys cached for each key id, so an event evicts one key's entries, not the whole cache. */
  private readonly cachedById = new Map<string, Set<string>>();
  /** Hashes of presented keys the store does not know. */
  private readonly unknown: LRUCache<string, true>;
  /** The keys of gateway.yaml's `keys.declared`, given (and replaced on each reload) by useDeclared. */
  private declared: DeclaredKeys | undefined;
  /** Every stored key's id, for `checkGuarded`. */
  private readonly knownIds: KnownKeyIds;
  /** Reads of stored records by id, for `checkGuarded`: guesses at one real id share one read per TTL. */
  private readonly byId: LRUCache<string, Promise<KeyRecord | undefined>>;

  constructor(
    private readonly store: KeyStore,
    private readonly hasher: KeyHasher,
    options: KeyServiceOptions,
    private readonly events?: KeyEvents,
  ) {
    // lru-cache keeps a reading of its clock for a millisecond; a given clock is read each time instead.
    const timing = options.clock ? { perf: { now: options.clock }, ttlResolution: 0 } : {};
    this.cache = lookupCache<string, KeyRecord>(options.cacheMax, options.cacheTtlMs, {
      // Keeps `cachedById` exactly as large as the cache: called on eviction, delete and overwrite.
      dispose: (record, presented) => this.unindex(record.id, presented),
      ...timing,
    });
    this.unknown = lookupCache(options.cacheMax, options.cacheTtlMs, timing);
    this.byId = lookupCache(options.cacheMax, options.cacheTtlMs, timing);
    this.knownIds = new KnownKeyIds(
      async () => (await this.store.list()).map((record) => record.id),
      ID_LISTING_GAP_MS,
    );
    events?.on((id) => this.evict(id));
  }

  /** The record for a presented key if the cache holds it: the request path's answer without a promise. */
  cached(presented: string): KeyRecord | undefined {
    return this.cache.get(presented);
  }

  /** The record for a presented key, or undefined when the key is unknown or malformed. */
  async lookup(presented: string): Promise<KeyRecord | undefined> {
    const cached = this.cache.get(presented);
    if (cached) return cached;
    if (!looksLikeKey(presented)) return undefined;
    const hash = this.hasher.hash(presented);
    if (this.unknown.has(hash)) return undefined;
    const found = this.declared?.findByHash(hash) ?? (await this.store.findByHash(hash));
    const record = found && KeyHasher.same(found.hash, hash) ? found : undefined;
    if (!record) {
      this.unknown.set(hash, true);
      return undefined;
    }
    this.remember(presented, record);
    return record;
  }

  /**
   * The record for a key presented from an address past its failed-auth limit, found without letting
   * that address's guesses reach the store: a key whose id no stored key has is refused in memory (see
   * known-key-ids.ts; `arrivedAt` is `performance.now()` when the request came), and a key with a real id is compared with
   * that id's record, read once per TTL however many guesses name it. A correct key is found as always.
   */
  async checkGuarded(presented: string, arrivedAt: number): Promise<KeyRecord | undefined> {
    const cached = this.cache.get(presented);
    if (cached) return cached;
    if (!looksLikeKey(presented)) return undefined;
    const hash = this.hasher.hash(presented);
    if (this.unknown.has(hash)) return undefined;
    const declared = this.declared?.findByHash(hash);
    const id = keyId(presented);
    const stored =
      declared ?? ((await this.knownIds.has(id, arrivedAt)) ? await this.storedById(id) : undefined);
    const record = stored && KeyHasher.same(stored.hash, hash) ? stored : undefined;
    if (record) this.remember(presented, record);
    return record;
  }

  private storedById(id: string): Promise<KeyRecord | undefined> {
    let read = this.byId.get(id);
    if (!read) {
      read = this.store.findById(id);
      this.byId.set(id, read);
      read.catch(() => this.byId.delete(id));
    }
    return read;
  }

  private remember(presented: string, record: KeyRecord): void {
    this.cache.set(presented, record);
    let presentedKeys = this.cachedById.get(record.id);
    if (!presentedKeys) this.cachedById.set(record.id, (presentedKeys = new Set()));
    presentedKeys.add(presented);
  }

  /** Forgets what the caches hold for key `id` (called on every key event, this instance's or another's). */
  evict(id: string): void {
    this.byId.delete(id);
    for (const presented of [...(this.cachedById.get(id) ?? [])]) this.cache.delete(presented);
  }

  async create(spec: NewKey): Promise<CreatedKey> {
    return this.createWith(spec, (record) => this.store.insert(record).then(() => true));
  }

  /**
   * The first key, on a first start: created once however many instances start together over one store.
   * Undefined when the store has keys, or another instance created it.
   */
  async createFirst(spec: NewKey): Promise<CreatedKey | undefined> {
    if (!(await this.isEmpty())) return undefined;
    let created = false;
    const key = await this.createWith(
      spec,
      async (record) => (created = await this.store.insertFirst(record)),
    );
    return created ? key : undefined;
  }

  private async createWith(
    spec: NewKey,
    insert: (record: KeyRecord) => Promise<boolean>,
  ): Promise<CreatedKey> {
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
        ...(spec.team_id !== undefined ? { team_id: spec.team_id } : {}),
        ...(spec.guardrails?.length ? { guardrails: [...spec.guardrails] } : {}),
        ...(spec.allowed_tools?.length ? { allowed_tools: [...spec.allowed_tools] } : {}),
        created_at: new Date().toISOString(),
      };
      await insert(record);
      this.knownIds.add(id);
      this.byId.delete(id);
      // A key presented before it existed left its hash here. Keys are random, so on other instances
      // that is practically impossible, and their negative entries expire within the TTL anyway.
      this.unknown.delete(record.hash);
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

  /** A declared key's record or a stored one's (key revocation re-reads both kinds by id). */
  async findById(id: string): Promise<KeyRecord | undefined> {
    return this.declared?.findById(id) ?? this.store.findById(id);
  }

  /**
   * The declared keys of a reloaded gateway.yaml. A key no longer declared, or declared differently, is
   * announced like a stored key's change: caches let go of it and a revoked key's streams end.
   */
  useDeclared(next: DeclaredKeys): void {
    const before = this.declared;
    this.declared = next;
    this.unknown.clear(); // a hash refused a moment ago may be declared now
    for (const record of before?.list() ?? []) {
      const now = next.findById(record.id);
      if (!now) this.announce(record.id, 'deleted');
      else if (!sameDeclaration(record, now)) this.announce(record.id, 'changed');
    }
  }

  /** The keys declared in gateway.yaml, in the file's order. */
  listDeclared(): KeyRecord[] {
    return this.declared?.list() ?? [];
  }

  isDeclared(id: string): boolean {
    return this.declared?.findById(id) !== undefined;
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
      // The replacement stays in the team: a team_admin's rotation must not make a key outside it.
      ...(old.team_id !== undefined ? { team_id: old.team_id } : {}),
      ...(old.guardrails !== undefined ? { guardrails: old.guardrails } : {}),
      ...(old.allowed_tools !== undefined ? { allowed_tools: old.allowed_tools } : {}),
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
    if (record) this.announce(id, 'changed');
    return record;
  }

  async delete(id: string): Promise<KeyRecord | undefined> {
    const record = await this.store.delete(id);
    if (record) this.announce(id, 'deleted');
    return record;
  }

  async isEmpty(): Promise<boolean> {
    return (await this.store.page({ limit: 1, now: new Date().toISOString() })).length === 0;
  }

  /** Without key events (a service built alone), this instance's cache is still evicted at once. */
  private announce(id: string, kind: 'changed' | 'deleted'): void {
    if (this.events) this.events.emit(id, kind);
    else this.evict(id);
  }

  private unindex(id: string, presented: string): void {
    const presentedKeys = this.cachedById.get(id);
    presentedKeys?.delete(presented);
    if (presentedKeys?.size === 0) this.cachedById.delete(id);
  }
}

/** Whether two readings of a declared key say the same (its `created_at` is when the file was read). */
const sameDeclaration = (a: KeyRecord, b: KeyRecord): boolean =>
  JSON.stringify({ ...a, created_at: '' }) === JSON.stringify({ ...b, created_at: '' });

export const KeyServiceToken = token<KeyService>('KeyService');
