/**
 * The admin API and the console it serves: who may call it (the bootstrap token, admin tokens, a console
 * session), what it shows and changes, and its listener.
 */
import type { Logger } from 'pino';
import type { Env } from '../../config/env';
import type { GatewayConfig } from '../../config/schema';
import { adminTokenSource, bootstrapTokenSource, type ActorSource } from '../admin/actor-sources';
import { AdminServer } from '../admin/admin-server';
import { ADMIN_TOKEN_EVENTS_CHANNEL, AdminTokenService } from '../admin/admin-token-service';
import type { ConfigControl } from '../admin/config-routes';
import type { PluginAdminRoutes } from '../admin/plugin-routes';
import { sessionSecret } from '../admin/sso/session-secret';
import { consoleSignOn } from '../admin/sso/single-sign-on';
import type { TeamExists } from '../admin/token-routes';
import { upstreamsPage } from '../admin/upstream-routes';
import type { Readiness } from '../health/readiness';
import { KeyEvents } from '../keys/key-events';
import type { KeyService } from '../keys/key-service';
import type { GatewayMetrics } from '../observability/metrics';
import type { RedisLink } from '../redis/redis-link';
import type { LiveRouting } from '../reload/live-routing';
import type { Resilience } from '../routing/resilience';
import type { Stores } from '../stores/stores';
import type { TaskPoller } from '../tasks/poller';
import type { TeamService } from '../teams/team-service';
import type { GatewaySecrets } from './gateway-secrets';
import { listenerPart, type ListenerPart } from './listener-part';
import type { WithParts } from './part';

export interface AdminNeeds {
  readonly env: Env;
  readonly logger: Logger;
  readonly stores: Stores;
  readonly secrets: GatewaySecrets;
  readonly instance: string;
  readonly redis: RedisLink | undefined;
  readonly keys: KeyService;
  readonly teams: TeamService;
  /** Whether a team exists, for `team_admin` tokens; by default, whether the team store has it. */
  readonly teamExists?: TeamExists | undefined;
  readonly poller: TaskPoller | undefined;
  readonly configControl: ConfigControl;
  readonly routing: LiveRouting;
  readonly resilience: Resilience;
  readonly readiness: Readiness;
  readonly metrics: GatewayMetrics;
  readonly pluginRoutes: PluginAdminRoutes;
}

export function adminApi(
  config: GatewayConfig,
  needs: AdminNeeds,
  partsNeeded: readonly string[],
): WithParts<{ listener: ListenerPart }> {
  const { stores, keys, teams, poller, resilience, readiness, metrics } = needs;
  const tokenEvents = new KeyEvents(needs.instance, needs.redis, needs.logger, ADMIN_TOKEN_EVENTS_CHANNEL);
  const tokens = new AdminTokenService(
    stores.adminTokens,
    needs.secrets.hasher,
    { cacheTtlMs: config.keys.cache_ttl, cacheMax: 1_000 },
    tokenEvents,
  );
  const { secret, adminToken } = needs.secrets;
  const sessions = sessionSecret(needs.env.GATEWAY_SESSION_SECRET, secret);
  const signOn = consoleSignOn(config.console.oidc, sessions, needs.redis);
  const session: ActorSource = (req) => signOn.actorOf(req);
  const access = {
    // A console session last: a call that presents a token is the token's alone.
    actors: [bootstrapTokenSource(adminToken), adminTokenSource(tokens), session],
    tokens,
    audit: stores.audit,
    logger: needs.logger,
    teamExists: needs.teamExists ?? (async (id: string) => (await teams.find(id)) !== undefined),
  };
  const admin = new AdminServer(access, keys, stores.usage, {
    ...(poller ? { videoStats: () => poller.stats() } : {}),
    tasks: stores.tasks,
    teams,
    config: needs.configControl,
    upstreams: () =>
      upstreamsPage(() => resilience.view(), Object.keys(needs.routing.current.config.upstreams)),
    health: () => readiness.view(),
    metrics: () => metrics.scrape(),
    signOn,
    pluginRoutes: needs.pluginRoutes,
  });
  const listener = listenerPart(config, 'admin', {
    needs: [...partsNeeded, 'admin token events'],
    listen: (host, port) => admin.listen(host, port),
    stop: () => admin.close(),
  });
  const events = {
    name: 'admin token events',
    needs: partsNeeded,
    start: () => tokenEvents.start(),
    stop: () => tokenEvents.stop(),
  };
  return { listener, parts: [events, listener] };
}
