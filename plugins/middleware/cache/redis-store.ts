/**
 * Entries on Redis, shared by every instance: one hash per entry (`m`: what is known of the call, `b`:
 * the body), named by the key's digest and each with its TTL, so that a Redis bounded by `maxmemory`
 * may evict them (volatile-* and allkeys-* policies alike). Redis that cannot answer (down, slower than
 * `redis.command_timeout`) is a miss, and a store that fails is dropped: the cache never turns an outage
 * into errors.
 */
import type { Logger } from 'pino';
import type { SseEvent } from '../../../core/kit/plugin';
import type { RedisLink } from '../../../core/kit/tokens';
import { digest } from './cache-key';
import { matches, type CacheEntry, type CacheStore, type ClearFilter, type EntryMeta } from './entry';

/** The entry's meta as stored: the form says how `b` reads. */
interface StoredMeta extends EntryMeta {
  readonly form: 'json' | 'sse';
}

const SCAN_COUNT = 500;

export class RedisCacheStore implements CacheStore {
  readonly backend = 'redis';
  /** Logged once per outage, as the link logs its own. */
  private failing = false;

  constructor(
    private readonly redis: RedisLink,
    private readonly logger: Logger,
  ) {}

  async get(key: string): Promise<CacheEntry | undefined> {
    if (!this.redis.up) return undefined;
    try {
      const [meta, body] = await this.redis.client.hmget(this.nameOf(key), 'm', 'b');
      this.failing = false;
      return meta && body ? decode(meta, body) : undefined;
    } catch (e) {
      this.failed(e);
      return undefined;
    }
  }

  set(key: string, entry: CacheEntry, ttlMs: number): void {
    if (!this.redis.up) return;
    const name = this.nameOf(key);
    const { meta, body } = entry;
    const form = typeof body === 'string' ? 'json' : 'sse';
    const stored: StoredMeta = { ...meta, form };
    this.redis.client
      .multi()
      .hset(name, { m: JSON.stringify(stored), b: typeof body === 'string' ? body : JSON.stringify(body) })
      .pexpire(name, ttlMs)
      .exec()
      .catch((e: unknown) => this.failed(e));
  }

  async clear(filter: ClearFilter): Promise<number> {
    const everything =
      filter.key_id === undefined && filter.team_id === undefined && filter.model === undefined;
    const { client } = this.redis;
    let removed = 0;
    const scan = client.scanStream({ match: this.redis.name('cache:*'), count: SCAN_COUNT });
    for await (const batch of scan as AsyncIterable<string[]>) {
      const names = everything ? batch : await this.matching(batch, filter);
      if (names.length > 0) removed += await client.unlink(...names);
    }
    return removed;
  }

  /** Of `names`, those whose entry matches `filter` (one round trip for the batch). */
  private async matching(names: readonly string[], filter: ClearFilter): Promise<string[]> {
    const pipeline = this.redis.client.pipeline();
    for (const name of names) pipeline.hget(name, 'm');
    const metas = (await pipeline.exec()) ?? [];
    return names.filter((_, i) => {
      const [error, meta] = metas[i] ?? [];
      return !error && typeof meta === 'string' && matches(JSON.parse(meta) as EntryMeta, filter);
    });
  }

  private nameOf(key: string): string {
    return this.redis.name(`cache:${digest(key)}`);
  }

  private failed(e: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn({ err: e instanceof Error ? e.message : String(e) }, 'cache: redis failed; calls miss');
  }
}

function decode(meta: string, body: string): CacheEntry | undefined {
  try {
    const { form, ...rest } = JSON.parse(meta) as StoredMeta;
    return { meta: rest, body: form === 'json' ? body : (JSON.parse(body) as SseEvent[]) };
  } catch {
    return undefined; // not an entry this gateway wrote: a miss, and the store overwrites it
  }
}
