/** The cache stage's options, as gateway.yaml gives them. */
import { z } from 'zod';
import { duration, size } from '../../../core/kit/plugin';

/** The client APIs the cache may serve, by their names in gateway.yaml, and the endpoints' ids. */
export const CACHED_APIS = {
  chat: 'chat-completions',
  messages: 'messages',
  responses: 'responses',
  embeddings: 'embeddings',
} as const;
type CachedApi = keyof typeof CACHED_APIS;

export const cacheOptions = z
  .object({
    /** How long an entry is served after it was stored. */
    ttl: duration.refine((ms) => ms >= 1_000, 'must be at least 1s').default(600_000),
    /** Who shares an entry: the key that stored it, every key of its team, or every caller. */
    scope: z.enum(['key', 'team', 'all']).default('key'),
    /** `auto`: redis when `redis.url` (or REDIS_URL) is set, else memory. */
    backend: z.enum(['auto', 'memory', 'redis']).default('auto'),
    /** A larger answer is not stored. */
    max_entry_size: size.default(1024 * 1024),
    /** The memory backend's bound, over every entry; the least recently used go first. */
    memory: size.default(256 * 1024 * 1024),
    /** Model ids or `*` patterns whose answers are cached. */
    models: z.array(z.string().min(1)).min(1).default(['*']),
    endpoints: z
      .array(z.enum(Object.keys(CACHED_APIS) as [CachedApi, ...CachedApi[]]))
      .min(1)
      .default(['chat', 'messages', 'responses', 'embeddings']),
  })
  .strict()
  .refine((o) => o.max_entry_size <= o.memory, {
    message: 'max_entry_size must not exceed memory',
    path: ['max_entry_size'],
  });
export type CacheOptions = z.output<typeof cacheOptions>;
