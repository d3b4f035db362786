/**
 * The caches of looked-up records (keys, teams, admin tokens): lru-cache entries that expire after a
 * TTL. An expired entry is not deleted when read, only reported missing, so the caller reads the store
 * and overwrites it in place. lru-cache deletes a cache's last entry by clearing the whole cache, a pass
 * over its slots, and a gateway with few keys would pay it on every expiry: measured at 5,000 to 10,000
 * instructions a request with a one-second TTL and 10,000 slots.
 */
import { LRUCache } from 'lru-cache';

/**
 * lru-cache options that bound a cache at `entries` entries. Given `max`, lru-cache allocates arrays of
 * `max` slots up front: 800 KB each at 100,000, live for the process's life and marked by every major
 * collection however few entries there are. Bounded by size at one per entry, the arrays grow with use,
 * and the same entries are evicted in the same order.
 */
export const boundedEntries = (entries: number) => ({ maxSize: entries, sizeCalculation: (): number => 1 });

/**
 * How long a cache keeps one reading of its clock: a hundredth of its TTL. lru-cache's default, 1 ms,
 * starts a timer to forget the reading every millisecond a cache is read, about one timer every three
 * requests at 3,000 requests/s; an entry served 1% past its TTL changes nothing (events evict at once).
 */
const clockResolution = (ttlMs: number): number => Math.max(1, Math.floor(ttlMs / 100));

export function lookupCache<K extends object | string, V extends object | string | boolean>(
  max: number,
  ttlMs: number,
  options: Omit<
    LRUCache.Options<K, V, unknown>,
    'max' | 'maxSize' | 'sizeCalculation' | 'ttl' | 'noDeleteOnStaleGet'
  > = {},
): LRUCache<K, V> {
  return new LRUCache<K, V>({
    ttlResolution: clockResolution(ttlMs),
    ...options,
    ...boundedEntries(max),
    ttl: ttlMs,
    noDeleteOnStaleGet: true,
  });
}
