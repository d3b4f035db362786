/**
 * Entries in this process, bounded by bytes (`memory`) and each by its TTL: lru-cache drops the least
 * recently used entry when a new one would pass the bound, and an expired one when it is next asked for.
 */
import { LRUCache } from 'lru-cache';
import { bodySize, matches, type CacheEntry, type CacheStore, type ClearFilter } from './entry';

/** What an entry's bookkeeping costs beyond its body, counted so that tiny entries are bounded too. */
const ENTRY_OVERHEAD = 256;

export class MemoryCacheStore implements CacheStore {
  readonly backend = 'memory';
  private readonly entries: LRUCache<string, CacheEntry>;

  constructor(memoryBytes: number, onEvicted: () => void) {
    this.entries = new LRUCache<string, CacheEntry>({
      maxSize: memoryBytes,
      sizeCalculation: (entry) => bodySize(entry.body) + ENTRY_OVERHEAD,
      dispose: (_entry, _name, reason) => {
        if (reason === 'evict') onEvicted();
      },
    });
  }

  get(name: string): CacheEntry | undefined {
    return this.entries.get(name);
  }

  set(name: string, entry: CacheEntry, ttlMs: number): void {
    this.entries.set(name, entry, { ttl: ttlMs });
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
