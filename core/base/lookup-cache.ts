/**
 * The caches of looked-up records (keys, teams, admin tokens): lru-cache entries that expire after a
 * TTL. An expired entry is not deleted when read, only reported missing, so the caller reads the store
 * and overwrites it in place. lru-cache deletes a cache's last entry by clearing the whole cache, a pass
 * over all `max` slots (10,000 by default), and a gateway with few keys would pay it on every expiry:
 * measured at 5,000 to 10,000 instructions a request with a one-second TTL.
 */
import { LRUCache } from 'lru-cache';

export function lookupCache<K extends object | string, V extends object | string | boolean>(
  max: number,
  ttlMs: number,
  options: Omit<LRUCache.Options<K, V, unknown>, 'max' | 'ttl' | 'noDeleteOnStaleGet'> = {},
): LRUCache<K, V> {
  // Bounded by size at one per entry rather than by `max`, which makes lru-cache allocate arrays of
  // `max` slots up front: 800 KB each at 100,000, live for the process's life and marked by every major
  // collection, however few entries there are.
  return new LRUCache<K, V>({
    ...options,
    maxSize: max,
    sizeCalculation: () => 1,
    ttl: ttlMs,
    noDeleteOnStaleGet: true,
  });
}
