/**
 * What outlives snapshots on the way to upstreams: the pool of their connections, the proxy, and the
 * resilience (failure counts and ejections, shared over Redis), which a reload reconfigures rather than
 * rebuilds.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import type { GatewayMetrics } from '../observability/metrics';
import { UpstreamProxy } from '../proxy/upstream-proxy';
import type { RedisLink } from '../redis/redis-link';
import { Resilience } from '../routing/resilience';
import { UpstreamPool } from '../upstream/upstream-pool';
import type { WithParts } from './part';

export interface UpstreamServices {
  readonly pool: UpstreamPool;
  readonly proxy: UpstreamProxy;
  readonly resilience: Resilience;
}

export interface UpstreamsNeeds {
  readonly logger: Logger;
  readonly redis: RedisLink | undefined;
  readonly instance: string;
  readonly metrics: GatewayMetrics;
}

export function upstreams(
  config: GatewayConfig,
  { logger, redis, instance, metrics }: UpstreamsNeeds,
  needs: readonly string[],
): WithParts<UpstreamServices> {
  const pool = new UpstreamPool();
  const resilience = new Resilience(config.resilience, logger, redis && { link: redis, instance }, metrics);
  return {
    pool,
    proxy: new UpstreamProxy(),
    resilience,
    parts: [
      { name: 'upstream connections', stop: () => pool.closeAll() },
      {
        name: 'resilience',
        needs,
        start: () => resilience.start(Object.keys(config.upstreams)), // reads ejections other instances made
        stop: () => resilience.stop(),
      },
    ],
  };
}
