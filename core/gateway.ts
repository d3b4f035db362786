/**
 * The composition root: the only place that builds stores, plugins, the pipeline and the servers, and
 * the only place that resolves from the container. Everything else receives what it needs.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { container } from 'tsyringe';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/schema';
import { ConfigError } from '../config/errors';
import type { Env } from '../config/env';
import { AdminServer } from './admin/admin-server';
import { upstreamsPage } from './admin/upstream-routes';
import {
  CatalogueToken,
  ConfigToken,
  KeyServiceToken,
  LoggerToken,
  LiveInstancesToken,
  PricingToken,
  RedisToken,
  ResilienceToken,
  SpendTrackerToken,
  UsageStoreToken,
} from './di';
import { Pricing } from './pricing';
import { LiveInstances } from './redis/live-instances';
import { RedisLink } from './redis/redis-link';
import { SpendTracker } from './spend-tracker';
import { needsWork } from './tasks/task';
import { openTaskHolds } from './tasks/open-task-holds';
import { requestBodies } from './http/body';
import type { Endpoint } from './http/endpoint';
import { GatewayServer } from './http/gateway-server';
import { modelEndpoint } from './http/model-endpoint';
import { modelsEndpoint } from './http/models-endpoint';
import { RouteTable } from './http/route-table';
import { KeyHasher } from './keys/api-key';
import { DeclaredKeys } from './keys/declared-keys';
import { KeyEvents } from './keys/key-events';
import { KeyRevocation } from './keys/key-revocation';
import { KeyService, type CreatedKey } from './keys/key-service';
import { ADMIN_TOKEN_FILE, KEY_SECRET_FILE, loadOrCreateSecret } from './keys/secrets';
import { createLogger } from './logger';
import { buildMiddlewares, Pipeline } from './pipeline';
import type { ModelApi } from './plugin';
import { UpstreamProxy } from './proxy/upstream-proxy';
import { Catalogue } from './routing/catalogue';
import { Resilience } from './routing/resilience';
import { openStores, type Stores } from './stores/open-stores';
import type { KeyStore } from './stores/key-store';
import type { TaskStore } from './stores/task-store';
import type { UsageStore } from './stores/usage-store';
import type { TaskPoller } from './tasks/poller';
import { buildVideo } from './tasks/build-video';
import { buildUpstreams } from './upstream/build-upstreams';

export interface StartOptions {
  readonly env?: Env;
  readonly logger?: Logger;
  /**
   * A key store to use instead of the configured one's, for tests of several instances in one process
   * over one key store (as instances share a MongoDB). The gateway does not close it.
   */
  readonly keyStore?: KeyStore;
}

export interface RunningGateway {
  readonly url: string;
  readonly adminUrl: string;
  readonly adminToken: string;
  readonly keys: KeyService;
  readonly usage: UsageStore;
  readonly tasks: TaskStore;
  /** The link to Redis, when one is configured. */
  readonly redis: RedisLink | undefined;
  /** This instance's video poller, when `video.poller` is on. */
  readonly poller: TaskPoller | undefined;
  /** The key created on a first start with no keys and none declared (shown once), if any. */
  readonly firstKey: CreatedKey | undefined;
  /** Graceful stop: stop accepting, let requests finish within the grace period, end open streams, flush usage. */
  close(graceMs?: number): Promise<void>;
}

export async function startGateway(
  config: GatewayConfig,
  options: StartOptions = {},
): Promise<RunningGateway> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? createLogger(config.logging.level);
  if (config.storage.driver === 'mongodb' && !env.GATEWAY_KEY_SECRET) {
    throw new ConfigError(
      'storage.driver',
      'mongodb is shared by several instances, so they must hash keys alike: set GATEWAY_KEY_SECRET to the same value on each',
    );
  }
  // Stores first: the embedded ones lock the data directory before anything in it is read or created.
  const stores = await openStores(config.storage, logger);
  try {
    const keyStore = options.keyStore ?? stores.keys;
    return await compose(config, env, logger, { ...stores, keys: keyStore });
  } catch (e) {
    await stores.close().catch(() => undefined); // frees the data directory for the next try
    throw e;
  }
}

/** Everything after the stores: secrets, plugins, pipeline, servers, poller. */
async function compose(
  config: GatewayConfig,
  env: Env,
  logger: Logger,
  stores: Stores,
): Promise<RunningGateway> {
  const dataDir = config.storage.data_dir;
  await mkdir(dataDir, { recursive: true });
  const secret = await loadOrCreateSecret(dataDir, KEY_SECRET_FILE, env.GATEWAY_KEY_SECRET);
  const adminToken = await loadOrCreateSecret(dataDir, ADMIN_TOKEN_FILE, env.GATEWAY_ADMIN_TOKEN);
  // Before anything that would need closing: a bad declared key stops start-up here.
  const hasher = new KeyHasher(Buffer.from(secret));
  const declared = new DeclaredKeys(config.keys.declared, hasher, new Date().toISOString());
  await declared.checkAgainst(stores.keys);
  const { usage, tasks: taskStore } = stores;
  const instance = instanceId();
  const redis = config.redis.url ? await RedisLink.connect(config.redis, logger) : undefined;
  const live = redis && new LiveInstances(redis, instance);
  live?.start();
  const keyEvents = new KeyEvents(instance, redis, logger);
  const keys = new KeyService(
    stores.keys,
    hasher,
    { cacheTtlMs: config.keys.cache_ttl, cacheMax: config.keys.cache_max, declared },
    keyEvents,
  );

  const scope = container.createChildContainer();
  // Factories, not values: tsyringe takes `useValue: undefined` for no provider at all.
  scope.register(RedisToken, { useFactory: () => redis });
  scope.register(LiveInstancesToken, { useFactory: () => live });
  scope.register(ConfigToken, { useValue: config });
  scope.register(LoggerToken, { useValue: logger });
  scope.register(KeyServiceToken, { useValue: keys });
  scope.register(UsageStoreToken, { useValue: usage });
  const pricing = new Pricing(config.prices);
  scope.register(PricingToken, { useValue: pricing });

  // Long-lived: a change of routing calls its configure(); its counts and ejections carry on.
  const resilience = new Resilience(config.resilience, logger, redis && { link: redis, instance });
  scope.register(ResilienceToken, { useValue: resilience });
  const upstreams = buildUpstreams(config, scope);
  const catalogue = new Catalogue(upstreams, config.routes, config.limits);
  scope.register(CatalogueToken, { useValue: catalogue });
  const spend = new SpendTracker(usage, Date.now, openTaskHolds(taskStore, catalogue, pricing));
  scope.register(SpendTrackerToken, { useValue: spend });
  const unpriced = catalogue
    .models()
    .map((m) => m.id)
    .filter((id) => !pricing.has(id));
  if (unpriced.length > 0) {
    logger.warn(
      { models: unpriced },
      'served models without a price in gateway.yaml `prices:`: their usage is recorded with cost unknown (cost_micros: null)',
    );
  }
  const pipeline = new Pipeline(buildMiddlewares(config.pipeline, scope));
  const proxy = new UpstreamProxy();
  const revocation = new KeyRevocation(keys, proxy, config.keys.revoke_check_every, logger);
  revocation.start(keyEvents);
  keyEvents.start();
  await resilience.start(Object.keys(config.upstreams)); // reads ejections other instances made
  const video = buildVideo({
    config,
    scope,
    upstreams,
    tasks: taskStore,
    usage,
    pricing,
    spend,
    logger,
    instanceId: instance,
    redis,
    live,
    resilience,
  });
  const routes = buildRoutes(catalogue, proxy, pipeline, video.endpoints, resilience);
  // Video submits' budget holds last until their tasks end, wherever they end (any instance's poller).
  if (pipeline.has('budget')) {
    taskStore.watch((task) => {
      if (!needsWork(task)) spend.taskEnded(task.id);
    });
  }

  const server = new GatewayServer(
    routes,
    pipeline,
    config.server,
    requestBodies({
      maxBytes: config.server.body_limit,
      idleMs: config.server.timeouts.body_read,
      totalMs: config.server.timeouts.body_total,
      maxJsonDepth: config.server.max_json_depth,
    }),
    logger,
  );
  const { poller } = video;
  const upstreamNames = Object.keys(config.upstreams);
  const admin = new AdminServer(adminToken, keys, usage, poller && (() => poller.stats()), taskStore, () =>
    upstreamsPage(() => resilience.view(), upstreamNames),
  );
  const port = await server.listen(config.server.host, config.server.port);
  const adminPort = await admin.listen(config.admin.host, config.admin.port);
  poller?.start();
  // A deployment that declares its keys has them: a stored key nobody asked for would be a surprise.
  const firstKey =
    config.keys.declared.length > 0
      ? undefined
      : await keys.createFirst({ description: 'created on first start' });

  let closing: Promise<void> | undefined;
  const shutdown = async (graceMs: number): Promise<void> => {
    const deadline = Date.now() + graceMs;
    server.stopAccepting();
    revocation.stop();
    keyEvents.stop();
    resilience.stop();
    if (!(await server.waitIdle(graceMs))) {
      proxy.endOpenStreams(); // each ends with its API's error frame, never a silent cut
      await server.waitIdle(1_000);
    }
    server.closeAllConnections();
    await poller?.stop(); // polls under way finish and release their leases
    await admin.close();
    // Usage writes that keep failing are retried for what is left of the grace period (at least a second).
    await stores.close(Math.max(1_000, deadline - Date.now()));
    for (const u of upstreams) u.close();
    await live?.stop();
    await redis?.close();
  };
  // Closing twice (a signal during a test's own close, say) waits for the first close.
  const close = (graceMs = config.server.shutdown_grace): Promise<void> => (closing ??= shutdown(graceMs));

  return {
    url: `http://${urlHost(config.server.host)}:${port}`,
    adminUrl: `http://${urlHost(config.admin.host)}:${adminPort}`,
    adminToken,
    keys,
    usage,
    tasks: taskStore,
    redis,
    poller,
    firstKey,
    close,
  };
}

/**
 * The route table: one endpoint per request/response API the configured upstreams serve, the task
 * protocols' endpoints, and the model list.
 */
function buildRoutes(
  catalogue: Catalogue,
  proxy: UpstreamProxy,
  pipeline: Pipeline,
  taskEndpoints: readonly Endpoint[],
  resilience: Resilience,
): RouteTable {
  const apis = new Map<string, ModelApi>();
  for (const spec of catalogue.models()) if (spec.api.kind !== 'task') apis.set(spec.api.id, spec.api);
  if (apis.size > 0 && !pipeline.has('model-router')) {
    throw new ConfigError(
      'pipeline',
      'model-router must be in the pipeline: it picks the upstream for each model',
    );
  }
  const routes = new RouteTable();
  for (const api of apis.values()) routes.add(modelEndpoint(api, proxy, pipeline.eventHooks, resilience));
  for (const endpoint of taskEndpoints) routes.add(endpoint);
  routes.add(modelsEndpoint(catalogue));
  catalogue.bind(routes.endpoints());
  return routes;
}

/** This process's name in leases: a restarted process does not mistake its predecessor's leases for its own. */
const instanceId = (): string => `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

const urlHost = (host: string): string => (host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host);
