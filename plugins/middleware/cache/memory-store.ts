/**
 * Entries in this process, bounded by bytes (`memory`) and each by its TTL: lru-cache drops the least
 * recently used entry when a new one would pass the bound, and an expired one when it is next asked for.
 *
 * A short key is its entry's own name: the Map hashes it in far fewer instructions than SHA-256, and
 * two calls share an entry only when their keys are equal. A long key is named by its digest, since
 * V8 hashes a string of over 16,383 characters by its length alone, and equal lengths would then make
 * a chain that every lookup walks.
 */
import { LRUCache } from 'lru-cache';
import { digest } from './cache-key';
import { bodySize, matches, type CacheEntry, type CacheStore, type ClearFilter } from './entry';

/** What an entry's bookkeeping costs beyond its body, counted so that tiny entries are bounded too. */
const ENTRY_OVERHEAD = 256;

/** Keys up to this length name their entry themselves; longer ones by their digest. */
const OWN_NAME_MAX = 4096;

const nameOf = (key: string): string => (key.length <= OWN_NAME_MAX ? key : digest(key));

export class MemoryCacheStore implements CacheStore {
  readonly backend = 'memory';
  private readonly entries: LRUCache<string, CacheEntry>;

  constructor(memoryBytes: number, onEvicted: () => void) {
    this.entries = new LRUCache<string, CacheEntry>({
      maxSize: memoryBytes,
      sizeCalculation: (entry, name) => bodySize(entry.body) + name.length + ENTRY_OVERHEAD,
      dispose: (_entry, _name, reason) => {
        if (reason === 'evict') onEvicted();
      },
    });
  }

  get(key: string): CacheEntry | undefined {
    return this.entries.get(nameOf(key));
  }

  set(key: string, entry: CacheEntry, ttlMs: number): void {
    this.entries.set(nameOf(key), entry, { ttl: ttlMs });
  }

  clear(filter: ClearFilter): Promise<number> {
    const names: string[] = [];
    for (const [name, entry] of this.entries.entries()) if (matches(entry.meta, filter)) names.push(name);
    for (const name of names) this.entries.delete(name);
    return Promise.resolve(names.length);
  }

  size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.entries.calculatedSize };
  }
}
