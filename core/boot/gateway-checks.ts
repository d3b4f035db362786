/**
 * What readiness checks on a gateway: its configuration, its stores and, where configured, Redis.
 * Only the stores can make it unready: a refused reload leaves the running configuration serving, and
 * a Redis that does not answer has local fallbacks (docs/operations.md: Several instances), so both are degraded.
 */
import type { ConfigStatus } from '../reload/config-reloader';
import type { RedisLink } from '../redis/redis-link';
import type { StoreHealth } from '../stores/store-health';
import type { Logger } from 'pino';
import { Readiness, type CheckResult, type ReadinessCheck } from '../health/readiness';

export interface CheckedParts {
  /** The running configuration's status (`GET /admin/config`). */
  readonly config: () => ConfigStatus | undefined;
  readonly stores: () => Promise<StoreHealth>;
  readonly redis: RedisLink | undefined;
}

const OK: CheckResult = Object.freeze({ state: 'ok' });

/** What `/readyz` and `/admin/health` answer from. */
export const gatewayReadiness = (parts: CheckedParts, logger: Logger): Readiness =>
  new Readiness(gatewayChecks(parts), logger);

export function gatewayChecks(parts: CheckedParts): ReadinessCheck[] {
  const { redis } = parts;
  return [
    { name: 'config', probe: () => configState(parts.config()) },
    {
      name: 'stores',
      probe: async () => {
        const health = await parts.stores();
        return health.ok ? OK : { state: 'failing', reason: health.reason ?? 'unavailable' };
      },
    },
    ...(redis
      ? [
          {
            name: 'redis',
            probe: (): CheckResult =>
              redis.up
                ? OK
                : {
                    state: 'degraded',
                    reason:
                      'not connected (reconnecting): rate limits and poll caps are counted by this instance, key changes reach it within keys.cache_ttl',
                  },
          },
        ]
      : []),
  ];
}

/** Degraded while the file on disk is one a reload refused: the instance serves the last good one. */
function configState(status: ConfigStatus | undefined): CheckResult {
  const refused = status?.last_error;
  if (!status || !refused) return OK;
  return {
    state: 'degraded',
    reason: `serving version ${status.version}; the file was refused at ${refused.at}: ${refused.message}`,
  };
}
