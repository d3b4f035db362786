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
  return new LRUCache<K, V>({ ...options, max, ttl: ttlMs, noDeleteOnStaleGet: true });
}
