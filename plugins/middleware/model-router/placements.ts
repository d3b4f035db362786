/**
 * Where sessions are placed: one value (a target's name, placement-of.ts) per session key, forgotten
 * `ttl` after the session's last call. In this process's memory without Redis; on Redis with it, so every
 * instance sends a session to the same place (redis-placements.ts).
 */
import { LRUCache } from 'lru-cache';
import { boundedEntries } from '../../../core/kit/plugin';

export interface Placements {
  /**
   * The placement kept under `key` when it is one of `usable` (its time renewed), else `candidate`, kept
   * under `key` from now on. May answer `candidate` without keeping it (a store that cannot answer).
   */
  place(key: string, candidate: string, usable: readonly string[], ttlMs: number): string | Promise<string>;
}

/** Sessions one instance keeps at most: the least recently used go first beyond it. */
export const MAX_SESSIONS = 100_000;

/** This process's placements. */
export class MemoryPlacements implements Placements {
  private readonly cache: LRUCache<string, string>;

  /** @param clock what the placements' times are read on (ms, monotonic): `performance.now()` unless given. */
  constructor(max = MAX_SESSIONS, clock?: () => number) {
    // An expired placement is overwritten in place, never deleted on read: lru-cache deletes its last
    // entry by clearing every slot.
    const timing = clock ? { perf: { now: clock }, ttlResolution: 0 } : {};
    this.cache = new LRUCache<string, string>({
      ...boundedEntries(max),
      noDeleteOnStaleGet: true,
      ...timing,
    });
  }

  place(key: string, candidate: string, usable: readonly string[], ttlMs: number): string {
    const placed = this.cache.get(key);
    const kept = placed !== undefined && usable.includes(placed) ? placed : candidate;
    this.cache.set(key, kept, { ttl: ttlMs });
    return kept;
  }

  get size(): number {
    return this.cache.size;
  }
}
