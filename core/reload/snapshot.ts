/**
 * A configuration snapshot: everything a request is routed, checked, priced and metered by, built from
 * one reading of gateway.yaml. A request keeps the snapshot it started with to its last byte; a reload
 * builds a whole new one beside it (any error leaves the running one untouched) and swaps it in.
 *
 * What is here changes live: upstreams, routes, model tables and limits, prices, the pipeline and its
 * options, the task protocols, the services (`mcp:`), declared keys. The rest (listeners, stores, Redis, the poller's timing)
 * is built once at start-up (core/boot/gateway.ts) and changes with a restart (effective-config.ts).
 */
import type { DependencyContainer } from 'tsyringe';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import { ConfigError } from '../../config/errors';
import { ConfigToken } from '../plugins/plugin-tokens';
import { modelEndpoint } from '../http/model-endpoint';
import { modelsEndpoint } from '../http/models-endpoint';
import { RouteTable } from '../http/route-table';
import type { KeyHasher } from '../keys/api-key';
import { DeclaredKeys } from '../keys/declared-keys';
import { buildMiddlewares, Pipeline } from '../plugins/pipeline';
import { checkPluginSections } from '../plugins/plugin-sections';
import type { Endpoint } from '../request/served-request';
import type { TaskUpstream } from '../contracts/task-upstream';
import { Pricing, PricingToken } from '../billing/pricing';
import type { UpstreamProxy } from '../proxy/upstream-proxy';
import { Catalogue, CatalogueToken } from '../routing/catalogue';
import type { Resilience } from '../routing/resilience';
import type { KeyStore } from '../stores/key-store';
import type { TaskStore } from '../stores/task-store';
import { taskUpstreams, videoEndpoints } from '../plugins/build-video';
import type { TaskWorker } from '../contracts/task-worker';
import type { TaskSubmission } from '../tasks/submission';
import { buildUpstreams } from '../plugins/build-upstreams';
import { buildApiServing } from '../plugins/build-translators';
import { buildServices, servicesEndpoints } from '../plugins/build-services';
import type { ApiServing } from '../routing/api-serving';
import type { Upstream } from '../upstream/upstream';
import type { UpstreamPool } from '../upstream/upstream-pool';

/** Where a snapshot's file came from, as `GET /admin/config` shows it. */
export interface ConfigSource {
  /** sha256 of the file's bytes (hex); `version` is its first 12 characters. */
  readonly hash: string;
  readonly version: string;
  /** ISO time the snapshot was built. */
  readonly loadedAt: string;
}

export interface Snapshot {
  readonly config: GatewayConfig;
  readonly source: ConfigSource;
  readonly upstreams: readonly Upstream[];
  readonly catalogue: Catalogue;
  readonly pricing: Pricing;
  readonly pipeline: Pipeline;
  readonly routes: RouteTable;
  readonly declared: DeclaredKeys;
  readonly taskUpstreams: ReadonlyMap<string, TaskUpstream>;
  /** The service plugins' task workers (batches), for the poller. */
  readonly taskWorkers: readonly TaskWorker[];
}

/** What every snapshot is built with: the parts that live as long as the process. */
export interface SnapshotParts {
  /** Holds what outlives snapshots (stores, key service, Redis, logger, kept state). */
  readonly scope: DependencyContainer;
  readonly pool: UpstreamPool;
  readonly proxy: UpstreamProxy;
  readonly submission: TaskSubmission;
  readonly tasks: TaskStore;
  readonly keyStore: KeyStore;
  readonly hasher: KeyHasher;
  readonly logger: Logger;
  /** Upstream health and the retry budget, which outlive snapshots. */
  readonly resilience: Resilience;
}

/** Builds a snapshot; throws ConfigError (naming the path) for anything only composing can find. */
export async function buildSnapshot(
  config: GatewayConfig,
  source: ConfigSource,
  parts: SnapshotParts,
): Promise<Snapshot> {
  checkPluginSections(config, parts.scope); // every bad plugin block at once, before building any
  const declared = new DeclaredKeys(config.keys.declared, parts.hasher, source.loadedAt);
  await declared.checkAgainst(parts.keyStore);
  const scope = parts.scope.createChildContainer();
  scope.register(ConfigToken, { useValue: config });
  const pricing = new Pricing(config.prices);
  scope.register(PricingToken, { useValue: pricing });
  const upstreams = buildUpstreams(config, scope, parts.pool);
  try {
    const catalogue = new Catalogue(upstreams, config.routes, config.limits);
    scope.register(CatalogueToken, { useValue: catalogue });
    const pipeline = new Pipeline(buildMiddlewares(config.pipeline, scope));
    const tasksServed = videoEndpoints(config, scope, parts.submission, parts.tasks);
    const services = buildServices(config, scope);
    await Promise.all(services.map((service) => service.ready?.() ?? Promise.resolve()));
    const ownEndpoints = [...tasksServed, ...servicesEndpoints(services)];
    const routes = buildRoutes(catalogue, parts, pipeline, ownEndpoints, buildApiServing(scope));
    warnUnpriced(catalogue, pricing, parts.logger);
    const served = taskUpstreams(upstreams);
    return {
      config,
      source,
      upstreams,
      catalogue,
      pricing,
      pipeline,
      routes,
      declared,
      taskUpstreams: served,
      taskWorkers: services.flatMap((service) => service.taskWorkers ?? []),
    };
  } catch (e) {
    parts.pool.release(upstreams);
    throw e;
  }
}

function warnUnpriced(catalogue: Catalogue, pricing: Pricing, logger: Logger): void {
  const unpriced = catalogue
    .models()
    .map((m) => m.id)
    .filter((id) => !pricing.has(id));
  if (unpriced.length === 0) return;
  logger.warn(
    { models: unpriced },
    'served models without a price in gateway.yaml `prices:`: their usage is recorded with cost unknown (cost_micros: null)',
  );
}

/**
 * The route table: one endpoint per request/response API the configured upstreams serve (natively or
 * through a translator), the task protocols' and the services' endpoints, and the model list.
 */
function buildRoutes(
  catalogue: Catalogue,
  { proxy, resilience }: SnapshotParts,
  pipeline: Pipeline,
  ownEndpoints: readonly Endpoint[],
  serving: ApiServing,
): RouteTable {
  const apis = serving.apis(catalogue.models());
  if (apis.length > 0 && !pipeline.has('model-router')) {
    throw new ConfigError(
      'pipeline',
      'model-router must be in the pipeline: it picks the upstream for each model',
    );
  }
  const routes = new RouteTable();
  for (const api of apis) routes.add(modelEndpoint(api, proxy, pipeline.phases, resilience, serving));
  for (const endpoint of ownEndpoints) routes.add(endpoint);
  routes.add(modelsEndpoint(catalogue));
  catalogue.bind(routes.endpoints());
  return routes;
}
