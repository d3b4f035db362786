/**
 * The composition root: the only place that builds stores, plugins, the pipeline and the servers, and
 * the only place that resolves from the container. Everything else receives what it needs. Each
 * subsystem has a builder of its own in this folder, which returns its services and its lifecycle parts,
 * each naming the parts it needs; `compose` calls them in turn and starts the parts.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import { ConfigError } from '../../config/errors';
import type { Env } from '../../config/env';
import type { TeamExists } from '../admin/token-routes';
import { PluginAdminRoutes } from '../admin/plugin-routes';
import type { Readiness } from '../health/readiness';
import type { CreatedKey, KeyService } from '../keys/key-service';
import { createLogger } from '../base/logger';
import { Loopback } from '../http/loopback';
import type { RedisLink } from '../redis/redis-link';
import type { ReloadResult, ReloadTrigger } from '../reload/config-reloader';
import type { SpendListener } from '../billing/spend-change';
import { definedPlugins, type AnyPluginRegistration } from '../plugins/define-plugin';
import type { KeyStore } from '../stores/key-store';
import type { TeamStore } from '../stores/team-store';
import type { TaskStore } from '../stores/task-store';
import type { UsageStore } from '../stores/usage-store';
import type { TaskPoller } from '../tasks/poller';
import type { TaskWorker } from '../contracts/task-worker';
import type { TeamService } from '../teams/team-service';
import { adminApi } from './admin-api';
import { billing } from './billing';
import { configReloading } from './config-reloading';
import { gatewayReadiness } from './gateway-checks';
import { gatewaySecrets } from './gateway-secrets';
import { gatewayStores } from './gateway-stores';
import { keysAndTeams } from './keys-and-teams';
import { Lifecycle } from './lifecycle';
import { gatewayListener } from './listeners';
import { observability } from './observability';
import { partsOf } from './part';
import { redisAndInstances } from './redis-and-instances';
import { liveRouting, RunningSnapshot, takeSnapshot } from './routing';
import { upstreams } from './upstreams';
import { videoPolling, videoSubmission } from './video-tasks';

export interface StartOptions {
  readonly env?: Env;
  readonly logger?: Logger;
  /**
   * A key store to use instead of the configured one's, for tests of several instances in one process
   * over one key store (as instances share a MongoDB). The gateway does not close it.
   */
  readonly keyStore?: KeyStore;
  /** A team store to use instead of the configured one's, as `keyStore`. The gateway does not close it. */
  readonly teamStore?: TeamStore;
  /** The file `config` was read from, with its hash: the gateway then reloads it (core/reload/). */
  readonly source?: { readonly file: string; readonly hash: string };
  /** The plugins this gateway may use; by default every plugin the process has loaded. */
  readonly plugins?: readonly AnyPluginRegistration[];
  /** Whether a team exists, for `team_admin` admin tokens; by default, whether the team store has it. */
  readonly teamExists?: TeamExists;
}

export interface RunningGateway {
  /** Where a client on this machine connects (loopback when the socket listens on every interface). */
  readonly url: string;
  /** The address the socket is bound to, as it is: `http://0.0.0.0:8080` listens on every interface. */
  readonly boundUrl: string;
  readonly adminUrl: string;
  readonly adminBoundUrl: string;
  readonly adminToken: string;
  readonly keys: KeyService;
  readonly teams: TeamService;
  readonly usage: UsageStore;
  readonly tasks: TaskStore;
  /** The link to Redis, when one is configured. */
  readonly redis: RedisLink | undefined;
  /** This instance's video poller, when `video.poller` is on. */
  readonly poller: TaskPoller | undefined;
  /** The running configuration's task workers (batches), which any poller over these stores may drive. */
  readonly taskWorkers: () => readonly TaskWorker[];
  /** The key created on a first start with no keys and none declared (shown once), if any. */
  readonly firstKey: CreatedKey | undefined;
  /** What `/readyz` and `/admin/health` answer from. */
  readonly readiness: Readiness;
  /**
   * What the budget ledger tells of each change of a budgeted spend: the spend alerts' `observe` (a no-op
   * without `alerts.webhooks`).
   */
  readonly observeSpend: SpendListener;
  /** Reloads the configuration file (SIGHUP); undefined when started without one. */
  reload(trigger: ReloadTrigger): Promise<ReloadResult> | undefined;
  /** Graceful stop: stop accepting, let requests finish within the grace period, end open streams, flush usage. */
  close(graceMs?: number): Promise<void>;
}

export async function startGateway(
  config: GatewayConfig,
  options: StartOptions = {},
): Promise<RunningGateway> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? createLogger(config.logging.level, config.logging.format);
  if (config.storage.driver === 'mongodb' && !env.GATEWAY_KEY_SECRET) {
    throw new ConfigError(
      'storage.driver',
      'mongodb is shared by several instances, so they must hash keys alike: set GATEWAY_KEY_SECRET to the same value on each',
    );
  }
  const lifecycle = new Lifecycle(logger);
  try {
    return await compose(config, { ...options, env, logger }, lifecycle);
  } catch (e) {
    await lifecycle.stop(0); // frees the data directory (and whatever else started) for the next try
    throw e;
  }
}

type ComposeOptions = StartOptions & { readonly env: Env; readonly logger: Logger };

/**
 * What lives as long as the process (stores, secrets, Redis, key service, proxy, poller, servers) is
 * built here once; what a reload may change is the snapshot (core/reload/snapshot.ts). Each builder's
 * parts join the lifecycle as soon as it returns, so a later builder that fails (a bad configuration)
 * leaves nothing running; each names the parts of the earlier builders it uses as its needs.
 */
async function compose(
  config: GatewayConfig,
  options: ComposeOptions,
  lifecycle: Lifecycle,
): Promise<RunningGateway> {
  const { env, logger } = options;
  const stored = lifecycle.join(await gatewayStores(config, options));
  const secrets = await gatewaySecrets(config, env);
  const shared = lifecycle.join(await redisAndInstances(config, logger));
  const observed = lifecycle.join(await observability(config, logger));
  const upstream = lifecycle.join(upstreams(config, { ...shared, ...observed, logger }, partsOf(shared)));
  const pluginRoutes = new PluginAdminRoutes();
  // The gateway's own address for the calls it makes through its pipeline: known once it listens.
  const loopback = new Loopback();
  const beside = {
    ...stored,
    ...secrets,
    ...shared,
    ...observed,
    ...upstream,
    logger,
    pluginRoutes,
    loopback,
  };
  const keyed = lifecycle.join(keysAndTeams(config, beside, partsOf(stored, shared)));
  // What is built before the first snapshot reads the running one through this, once it exists.
  const running = new RunningSnapshot();
  const billed = lifecycle.join(billing(config, { ...beside, running }, partsOf(stored, shared)));
  const video = videoSubmission(config, { ...beside, ...billed, running });
  const routed = await liveRouting(config, {
    ...{ ...beside, ...keyed, ...billed, ...video, running },
    plugins: options.plugins ?? definedPlugins(),
    source: options.source,
  });
  const used = [stored, shared, observed, upstream, keyed, billed];
  const polling = lifecycle.join(videoPolling(video, routed.first, partsOf(...used)));
  const reloading = lifecycle.join(
    configReloading({
      ...{ ...beside, ...routed, config, env, file: options.source?.file },
      applied: takeSnapshot({ ...beside, ...keyed, ...polling }),
      partsNeeded: partsOf(...used, polling),
    }),
  );
  const readiness = gatewayReadiness(
    { config: () => reloading.control.status(), stores: () => stored.stores.health(), redis: shared.redis },
    logger,
  );
  const serving = partsOf(...used, polling, reloading);
  const everything = { ...beside, ...keyed, ...billed, ...polling, ...routed, readiness, env };
  const admin = lifecycle.join(
    adminApi(
      config,
      { ...everything, secrets, configControl: reloading.control, teamExists: options.teamExists },
      serving,
    ),
  );
  const listening = lifecycle.join(gatewayListener(config, everything, [...serving, ...partsOf(admin)]));
  await lifecycle.start();
  let closing: Promise<void> | undefined;
  const mainAddress = listening.listener.address();
  const adminAddress = admin.listener.address();
  const { stores } = stored;
  return {
    url: mainAddress.local,
    boundUrl: mainAddress.bound,
    adminUrl: adminAddress.local,
    adminBoundUrl: adminAddress.bound,
    adminToken: secrets.adminToken,
    keys: keyed.keys,
    teams: keyed.teams,
    usage: stores.usage,
    tasks: stores.tasks,
    redis: shared.redis,
    poller: polling.poller,
    taskWorkers: () => routed.routing.current.taskWorkers,
    firstKey: listening.firstKey(),
    readiness,
    observeSpend: billed.alerts ?? (() => undefined),
    reload: reloading.reload,
    // Closing twice (a signal during a test's own close, say) waits for the first close.
    close: (graceMs = config.server.shutdown_grace) => (closing ??= lifecycle.stop(graceMs)),
  };
}
