/**
 * The key and team services with their caches, the events that keep the caches of instances sharing
 * Redis in step, and the revocation that ends the open streams of a key that stopped working.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import type { KeyHasher } from '../keys/api-key';
import { KeyEvents } from '../keys/key-events';
import { KeyRevocation } from '../keys/key-revocation';
import { KeyService } from '../keys/key-service';
import type { UpstreamProxy } from '../proxy/upstream-proxy';
import type { RedisLink } from '../redis/redis-link';
import type { Stores } from '../stores/stores';
import { TeamEvents } from '../teams/team-events';
import { TeamService } from '../teams/team-service';
import type { WithParts } from './part';

export interface KeysAndTeams {
  readonly keys: KeyService;
  readonly teams: TeamService;
}

export interface KeysAndTeamsNeeds {
  readonly logger: Logger;
  readonly stores: Stores;
  readonly hasher: KeyHasher;
  readonly instance: string;
  readonly redis: RedisLink | undefined;
  readonly proxy: UpstreamProxy;
}

export function keysAndTeams(
  config: GatewayConfig,
  { logger, stores, hasher, instance, redis, proxy }: KeysAndTeamsNeeds,
  needs: readonly string[],
): WithParts<KeysAndTeams> {
  const keyEvents = new KeyEvents(instance, redis, logger);
  const cacheOptions = { cacheTtlMs: config.keys.cache_ttl, cacheMax: config.keys.cache_max };
  const keys = new KeyService(stores.keys, hasher, cacheOptions, keyEvents);
  const teamEvents = new TeamEvents(instance, redis, logger);
  const teams = new TeamService(stores.teams, keys, cacheOptions, teamEvents);
  const revocation = new KeyRevocation(keys, proxy, config.keys.revoke_check_every, logger);
  return {
    keys,
    teams,
    parts: [
      {
        name: 'key revocation',
        needs,
        start: () => revocation.start(keyEvents),
        stop: () => revocation.stop(),
      },
      // Other instances' key events start arriving once the revocation listens to them.
      {
        name: 'key events',
        needs: [...needs, 'key revocation'],
        start: () => keyEvents.start(),
        stop: () => keyEvents.stop(),
      },
      { name: 'team events', needs, start: () => teamEvents.start(), stop: () => teamEvents.stop() },
    ],
  };
}
