/**
 * The composition root: the only place that builds stores, plugins, the pipeline and the servers, and
 * the only place that resolves from the container. Everything else receives what it needs.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { DependencyContainer } from 'tsyringe';
import type { GatewayConfig } from '../../config/schema';
import { ConfigError } from '../../config/errors';
import type { Env } from '../../config/env';
import { variablesOf } from '../../config/load';
import { adminTokenSource, bootstrapTokenSource, type ActorSource } from '../admin/actor-sources';
import { AdminServer } from '../admin/admin-server';
import { ADMIN_TOKEN_EVENTS_CHANNEL, AdminTokenService } from '../admin/admin-token-service';
import type { TeamExists } from '../admin/token-routes';
import { upstreamsPage } from '../admin/upstream-routes';
import { sessionSecret } from '../admin/sso/session-secret';
import { consoleSignOn } from '../admin/sso/single-sign-on';
import { gatewayChecks } from './gateway-checks';
import { Readiness } from '../health/readiness';
import { requestBodies } from '../http/body';
import { definedPlugins, type AnyPluginRegistration } from '../plugins/define-plugin';
import { pluginContainer } from '../plugins/plugin-container';
import { GatewayServer } from '../server/gateway-server';
import { Lifecycle, type Part } from './lifecycle';
import { configReloading } from './config-reloading';
import { HealthEndpoints } from '../http/health-endpoints';
import { listenAddress, type ListenAddress } from '../http/listen-address';
import { listenNamed, type ListenerPlace } from '../http/listen-failure';
import { KeyHasher } from '../keys/api-key';
import { KeyEvents } from '../keys/key-events';
import { KeyRevocation } from '../keys/key-revocation';
import { KeyService, KeyServiceToken, type CreatedKey } from '../keys/key-service';
import { TeamEvents } from '../teams/team-events';
import { TeamService, TeamServiceToken } from '../teams/team-service';
import { ADMIN_TOKEN_FILE, KEY_SECRET_FILE, loadOrCreateSecret } from '../keys/secrets';
import { createLogger, LoggerToken } from '../base/logger';
import { GatewayMetrics } from '../observability/metrics';
import { RequestObserver } from '../observability/request-observer';
import { endpointNamed } from '../observability/tracing/endpoint-named';
import type { GatewayTracing } from '../observability/tracing/gateway-tracing';
import { UpstreamProxy } from '../proxy/upstream-proxy';
import { LiveInstances, LiveInstancesToken } from '../redis/live-instances';
import { RedisLink, RedisToken } from '../redis/redis-link';
import { sourceOf, type ReloadResult, type ReloadTrigger } from '../reload/config-reloader';
import { KeptState, KeptStateToken } from '../reload/kept-state';
import { LiveRouting } from '../reload/live-routing';
import { Resilience, ResilienceToken } from '../routing/resilience';
import { buildSnapshot, type ConfigSource, type Snapshot, type SnapshotParts } from '../reload/snapshot';
import { BudgetLedgerToken, type BudgetLedger } from '../billing/budget-ledger';
import { budgetLedger } from '../billing/open-budget-ledger';
import type { SpendListener } from '../billing/spend-change';
import { SpendAlerts, type SpendAlertsDeps } from '../alerts/spend-alerts';
import { RedisClaims } from '../redis/redis-claims';
import { openStores } from '../stores/open-stores';
import { type Stores } from '../stores/stores';
import type { KeyStore } from '../stores/key-store';
import type { TeamStore } from '../stores/team-store';
import type { TaskStore } from '../stores/task-store';
import { UsageStoreToken, type UsageStore } from '../stores/usage-store';
import { taskSubmission, videoPoller } from '../plugins/build-video';
import { openTaskHolds } from '../tasks/open-task-holds';
import type { TaskPoller } from '../tasks/poller';
import { needsWork } from '../stores/video-task';
import { UpstreamPool } from '../upstream/upstream-pool';

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
  // Stores first: the embedded ones lock the data directory before anything in it is read or created.
  const stores = await openStores(config.storage, logger, config.audit);
  // Flushed last: usage written while the rest stops is kept, retried for what is left of the grace
  // period (at least a second).
  lifecycle.add({ name: 'stores', stop: (deadline) => stores.close(Math.max(1_000, deadline - Date.now())) });
  try {
    const shared = { keys: options.keyStore ?? stores.keys, teams: options.teamStore ?? stores.teams };
    const composed = { ...options, env, logger };
    return await compose(config, composed, { ...stores, ...shared }, lifecycle);
  } catch (e) {
    await lifecycle.stop(0); // frees the data directory (and whatever else started) for the next try
    throw e;
  }
}

type ComposeOptions = StartOptions & { readonly env: Env; readonly logger: Logger };

/**
 * Everything after the stores. What lives as long as the process (secrets, key service, Redis, proxy,
 * poller, servers) is built here once; what a reload may change is the snapshot (core/reload/snapshot.ts).
 * Each running part joins `lifecycle` after what it depends on, which starts them all at the end.
 */
async function compose(
  config: GatewayConfig,
  { env, logger, source, plugins = definedPlugins(), teamExists }: ComposeOptions,
  stores: Stores,
  lifecycle: Lifecycle,
): Promise<RunningGateway> {
  const dataDir = config.storage.data_dir;
  await mkdir(dataDir, { recursive: true });
  const secret = await loadOrCreateSecret(dataDir, KEY_SECRET_FILE, env.GATEWAY_KEY_SECRET);
  const adminToken = await loadOrCreateSecret(dataDir, ADMIN_TOKEN_FILE, env.GATEWAY_ADMIN_TOKEN);
  const hasher = new KeyHasher(Buffer.from(secret));
  const { usage, tasks: taskStore } = stores;
  const instance = instanceId();
  const redis = config.redis.url ? await RedisLink.connect(config.redis, logger) : undefined;
  if (redis) lifecycle.add({ name: 'redis', stop: () => redis.close() });
  const live = redis && new LiveInstances(redis, instance);
  if (live) lifecycle.add({ name: 'live instances', start: () => live.start(), stop: () => live.stop() });
  const keyEvents = new KeyEvents(instance, redis, logger);
  const cacheOptions = { cacheTtlMs: config.keys.cache_ttl, cacheMax: config.keys.cache_max };
  const keys = new KeyService(stores.keys, hasher, cacheOptions, keyEvents);
  const teamEvents = new TeamEvents(instance, redis, logger);
  const teams = new TeamService(stores.teams, keys, cacheOptions, teamEvents);

  // What outlives snapshots reads the running one through this (called only once `routing` exists below).
  const running = (): Snapshot => routing.current;
  const ledger = budgetLedger({
    usage,
    openTasks: openTaskHolds(taskStore, running),
    redis,
    logger,
  });
  const budgets = ledger.ledger;
  lifecycle.add({ name: 'budgets', stop: () => Promise.resolve(ledger.stop()) });
  const tracing = await gatewayTracing(config, lifecycle);
  // This gateway's own registry: several gateways in one process (tests) must not share counts.
  const metrics = new GatewayMetrics({ exemplars: tracing !== undefined });
  // Long-lived: a reload calls its configure(); failure counts and ejections carry on.
  const resilience = new Resilience(config.resilience, logger, redis && { link: redis, instance }, metrics);
  const alerts = spendAlerts(
    config,
    { claims: redis ? new RedisClaims(redis) : stores.claims, logger, metrics },
    lifecycle,
  );
  if (alerts) budgets.onSpend(alerts);
  const scope = gatewayScope(plugins, { redis, live, logger, keys, teams, usage, budgets, resilience });

  const proxy = new UpstreamProxy();
  const videoDeps = {
    config,
    tasks: taskStore,
    usage,
    pricing: () => running().pricing,
    budgets,
    logger,
    instanceId: instance,
    redis,
    live,
    resilience,
    metrics,
    spans: tracing?.tasks,
  };
  const pool = new UpstreamPool();
  lifecycle.add({ name: 'upstream connections', stop: () => pool.closeAll() });
  const parts: SnapshotParts = {
    scope,
    pool,
    proxy,
    submission: taskSubmission(videoDeps),
    tasks: taskStore,
    keyStore: stores.keys,
    hasher,
    logger,
    resilience,
  };
  const build = (next: GatewayConfig, from: ConfigSource) => buildSnapshot(next, from, parts);
  // Before anything starts: a bad configuration (a declared key too) stops start-up here.
  const first = await build(config, sourceOf(source?.hash ?? objectHash(config)));
  const routing = new LiveRouting(first, (old) => pool.release(old.upstreams));
  metrics.configured(first.source.hash);
  keys.useDeclared(first.declared);
  lifecycle.add({
    name: 'resilience',
    start: () => resilience.start(Object.keys(config.upstreams)), // reads ejections other instances made
    stop: () => resilience.stop(),
  });
  const revocation = new KeyRevocation(keys, proxy, config.keys.revoke_check_every, logger);
  lifecycle.add({
    name: 'key revocation',
    start: () => revocation.start(keyEvents),
    stop: () => revocation.stop(),
  });
  lifecycle.add({ name: 'key events', start: () => keyEvents.start(), stop: () => keyEvents.stop() });
  lifecycle.add({ name: 'team events', start: () => teamEvents.start(), stop: () => teamEvents.stop() });
  const poller = videoPoller(videoDeps, first.taskUpstreams);
  // Video submits' budget holds last until their tasks end, wherever they end (any instance's poller).
  taskStore.watch((task) => {
    if (!needsWork(task)) void budgets.taskEnded(task.id);
  });

  const reloading = configReloading({
    config,
    file: source?.file,
    env,
    instance,
    redis,
    routing,
    build,
    applied: (snapshot) => {
      keys.useDeclared(snapshot.declared);
      poller?.useUpstreams(snapshot.taskUpstreams);
      resilience.configure(snapshot.config.resilience);
      void resilience.start(Object.keys(snapshot.config.upstreams)); // an added upstream may be ejected already
      logger.level = snapshot.config.logging.level;
    },
    metrics,
    logger,
  });
  const configControl = reloading.control;
  const readiness = new Readiness(
    gatewayChecks({ config: () => configControl.status(), stores: () => stores.health(), redis }),
    logger,
  );
  const server = new GatewayServer(
    routing,
    config.server,
    requestBodies({
      maxBytes: config.server.body_limit,
      idleMs: config.server.timeouts.body_read,
      totalMs: config.server.timeouts.body_total,
      maxJsonDepth: config.server.max_json_depth,
    }),
    logger,
    new RequestObserver(logger, metrics),
    new HealthEndpoints(readiness),
    tracing?.requests,
  );
  metrics.watch({
    inFlight: () => server.requestsInFlight,
    openStreams: () => proxy.openStreamCount,
    ejectedUpstreams: () => resilience.health.ejectedCount,
    usage: () => usage.stats(),
    ...(poller ? { taskCounts: () => taskStore.countByStatus() } : {}),
  });
  const tokenEvents = new KeyEvents(instance, redis, logger, ADMIN_TOKEN_EVENTS_CHANNEL);
  lifecycle.add({
    name: 'admin token events',
    start: () => tokenEvents.start(),
    stop: () => tokenEvents.stop(),
  });
  const adminTokens = new AdminTokenService(
    stores.adminTokens,
    hasher,
    { cacheTtlMs: config.keys.cache_ttl, cacheMax: 1_000 },
    tokenEvents,
  );
  const signOn = consoleSignOn(config.console.oidc, sessionSecret(env.GATEWAY_SESSION_SECRET, secret), redis);
  const session: ActorSource = (req) => signOn.actorOf(req);
  const adminAccess = {
    // A console session last: a call that presents a token is the token's alone.
    actors: [bootstrapTokenSource(adminToken), adminTokenSource(adminTokens), session],
    tokens: adminTokens,
    audit: stores.audit,
    logger,
    teamExists: teamExists ?? (async (id: string) => (await teams.find(id)) !== undefined),
  };
  const admin = new AdminServer(adminAccess, keys, usage, {
    ...(poller ? { videoStats: () => poller.stats() } : {}),
    tasks: taskStore,
    teams,
    config: configControl,
    upstreams: () => upstreamsPage(() => resilience.view(), Object.keys(running().config.upstreams)),
    health: () => readiness.view(),
    metrics: () => metrics.scrape(),
    signOn,
  });
  const adminListener = listenerPart(
    config,
    'admin',
    (host, port) => admin.listen(host, port),
    () => admin.close(),
  );
  lifecycle.add(adminListener);
  if (poller) lifecycle.add({ name: 'video poller', start: () => poller.start(), stop: () => poller.stop() }); // polls under way finish and release their leases
  for (const part of reloading.parts) lifecycle.add(part);
  const mainListener = listenerPart(
    config,
    'server',
    (host, port) => server.listen(host, port),
    (deadline) => drain(server, proxy, deadline),
  );
  lifecycle.add(mainListener);
  let firstKey: CreatedKey | undefined;
  lifecycle.add({
    name: 'first key',
    // A deployment that declares its keys has them: a stored key nobody asked for would be a surprise.
    start: async () => {
      if (config.keys.declared.length === 0)
        firstKey = await keys.createFirst({ description: 'created on first start' });
    },
  });
  // Last to start, first to stop: /readyz answers 503 on the connections still open while the rest stops.
  lifecycle.add({ name: 'readiness', start: () => readiness.serving(), stop: () => readiness.drain() });
  await lifecycle.start();

  let closing: Promise<void> | undefined;
  // Closing twice (a signal during a test's own close, say) waits for the first close.
  const close = (graceMs = config.server.shutdown_grace): Promise<void> =>
    (closing ??= lifecycle.stop(graceMs));
  const mainAddress = mainListener.address();
  const adminAddress = adminListener.address();
  return {
    url: mainAddress.local,
    boundUrl: mainAddress.bound,
    adminUrl: adminAddress.local,
    adminBoundUrl: adminAddress.bound,
    adminToken,
    keys,
    teams,
    usage,
    tasks: taskStore,
    redis,
    poller,
    firstKey,
    readiness,
    observeSpend: alerts ?? (() => undefined),
    reload: reloading.reload,
    close,
  };
}

/** The services a plugin may inject, in this gateway's own container with the plugins it was given. */
function gatewayScope(
  plugins: readonly AnyPluginRegistration[],
  services: {
    readonly redis: RedisLink | undefined;
    readonly live: LiveInstances | undefined;
    readonly logger: Logger;
    readonly keys: KeyService;
    readonly teams: TeamService;
    readonly usage: UsageStore;
    readonly budgets: BudgetLedger;
    readonly resilience: Resilience;
  },
): DependencyContainer {
  const scope = pluginContainer(plugins);
  const { redis, live } = services;
  // Factories, not values: tsyringe takes `useValue: undefined` for no provider at all.
  scope.register(RedisToken, { useFactory: () => redis });
  scope.register(LiveInstancesToken, { useFactory: () => live });
  scope.register(LoggerToken, { useValue: services.logger });
  scope.register(KeyServiceToken, { useValue: services.keys });
  scope.register(TeamServiceToken, { useValue: services.teams });
  scope.register(UsageStoreToken, { useValue: services.usage });
  scope.register(BudgetLedgerToken, { useValue: services.budgets });
  scope.register(KeptStateToken, { useValue: new KeptState() });
  scope.register(ResilienceToken, { useValue: services.resilience });
  return scope;
}

/**
 * The spend alerts as a listener of the budget ledger and a part of the gateway; none without a webhook,
 * so a gateway without alerts pays nothing per record. Added before the listeners, so it stops after
 * them: the last requests' spend is still observed, and deliveries under way get what is left of the
 * grace period (at least a second).
 */
function spendAlerts(
  config: GatewayConfig,
  deps: SpendAlertsDeps,
  lifecycle: Lifecycle,
): SpendListener | undefined {
  if (config.alerts.webhooks.length === 0) return undefined;
  const alerts = new SpendAlerts(config.alerts, deps);
  lifecycle.add({
    name: 'spend alerts',
    start: () => alerts.start(),
    stop: (deadline) => alerts.stop(Math.max(deadline, Date.now() + 1_000)),
  });
  return (change) => alerts.observe(change);
}

/**
 * The listener's stop: no new connections, requests in flight finish within the grace period, then open
 * streams end with their API's error frame (never a silent cut) and the last connections close.
 */
async function drain(server: GatewayServer, proxy: UpstreamProxy, deadline: number): Promise<void> {
  server.stopAccepting();
  if (!(await server.waitIdle(Math.max(0, deadline - Date.now())))) {
    proxy.endOpenStreams();
    await server.waitIdle(1_000);
  }
  server.closeAllConnections();
}

/** A configuration given as an object (tests) is named by the hash of its JSON. */
const objectHash = (config: GatewayConfig): string =>
  createHash('sha256').update(JSON.stringify(config)).digest('hex');

/** This process's name in leases: a restarted process does not mistake its predecessor's leases for its own. */
const instanceId = (): string => `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

/**
 * Tracing when an endpoint is named and the settings keep it on (tracing-settings.ts); OpenTelemetry's
 * packages are loaded only then. Stopped after the listeners, so the last requests' spans are sent.
 */
async function gatewayTracing(
  config: GatewayConfig,
  lifecycle: Lifecycle,
): Promise<GatewayTracing | undefined> {
  if (!endpointNamed(config.tracing)) return undefined;
  const { startGatewayTracing } = await import('../observability/tracing/gateway-tracing');
  const tracing = startGatewayTracing(config.tracing);
  if (tracing) lifecycle.add({ name: 'tracing', stop: () => tracing.shutdown() });
  return tracing;
}

/** A listener as a lifecycle part: it binds when started (a failure names it) and then knows its address. */
function listenerPart(
  config: GatewayConfig,
  section: 'server' | 'admin',
  listen: (host: string, port: number) => Promise<number>,
  stop: (deadline: number) => Promise<void>,
): Part & { address(): ListenAddress } {
  const place = listenerOf(config, section);
  const { host, port } = config[section];
  let bound: ListenAddress | undefined;
  return {
    name: place.what,
    start: async () => {
      bound = listenAddress(host, await listenNamed(place, host, port, () => listen(host, port)));
    },
    stop,
    address: () => {
      if (!bound) throw new Error(`${place.what} is not listening`);
      return bound;
    },
  };
}

/** The main or admin listener, named in a bind failure with what overrides its port. */
const listenerOf = (config: GatewayConfig, section: 'server' | 'admin'): ListenerPlace => ({
  what: section === 'server' ? 'the gateway' : 'the admin API',
  setting: `${section}.port`,
  variables: variablesOf(config, `${section}.port`),
});
