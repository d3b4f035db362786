/**
 * This instance's name, and its link to Redis when one is configured: what instances sharing Redis count
 * (live instances), lease and announce to each other with.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import { LiveInstances } from '../redis/live-instances';
import { RedisLink } from '../redis/redis-link';
import type { Part, WithParts } from './part';

export interface RedisAndInstance {
  /** This process's name in leases, claims and events. */
  readonly instance: string;
  readonly redis: RedisLink | undefined;
  /** The instances sharing Redis now; undefined without Redis. */
  readonly live: LiveInstances | undefined;
}

export async function redisAndInstances(
  config: GatewayConfig,
  logger: Logger,
): Promise<WithParts<RedisAndInstance>> {
  const instance = instanceId();
  const redis = config.redis.url ? await RedisLink.connect(config.redis, logger) : undefined;
  const live = redis && new LiveInstances(redis, instance);
  const parts: Part[] = [];
  if (redis) parts.push({ name: 'redis', stop: () => redis.close() });
  if (live) {
    parts.push({
      name: 'live instances',
      needs: ['redis'],
      start: () => live.start(),
      stop: () => live.stop(),
    });
  }
  return { instance, redis, live, parts };
}

/** This process's name in leases: a restarted process does not mistake its predecessor's leases for its own. */
const instanceId = (): string => `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
