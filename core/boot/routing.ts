/**
 * Routing as it lives: the first snapshot of the configuration (core/reload/snapshot.ts), built in the
 * gateway's own container, and the live routing that serves it until a reload swaps in the next.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import type { KeyHasher } from '../keys/api-key';
import type { KeyService } from '../keys/key-service';
import type { GatewayMetrics } from '../observability/metrics';
import type { AnyPluginRegistration } from '../plugins/define-plugin';
import { sourceOf } from '../reload/config-reloader';
import { LiveRouting } from '../reload/live-routing';
import { buildSnapshot, type ConfigSource, type Snapshot, type SnapshotParts } from '../reload/snapshot';
import type { Resilience } from '../routing/resilience';
import type { Stores } from '../stores/stores';
import type { TaskPoller } from '../tasks/poller';
import type { TaskSubmission } from '../tasks/submission';
import { gatewayScope, type ScopedServices } from './gateway-scope';
import type { UpstreamServices } from './upstreams';

export interface RoutingNeeds
  extends Omit<ScopedServices, 'usage' | 'tasks' | 'files' | 'batchLines'>, UpstreamServices {
  readonly plugins: readonly AnyPluginRegistration[];
  /** The file the configuration was read from, with its hash, when it was. */
  readonly source?: { readonly hash: string } | undefined;
  readonly stores: Stores;
  readonly hasher: KeyHasher;
  readonly submission: TaskSubmission;
  readonly metrics: GatewayMetrics;
  /** Told of the live routing once it exists. */
  readonly running: RunningSnapshot;
}

export interface Routing {
  readonly routing: LiveRouting;
  /** Builds a snapshot of a configuration, as a reload does. */
  readonly build: (next: GatewayConfig, from: ConfigSource) => Promise<Snapshot>;
  readonly first: Snapshot;
}

/** Before anything starts: a bad configuration (a declared key too) stops start-up here. */
export async function liveRouting(config: GatewayConfig, needs: RoutingNeeds): Promise<Routing> {
  const { stores, pool, keys, metrics } = needs;
  const snapshotParts: SnapshotParts = {
    scope: gatewayScope(needs.plugins, {
      ...needs,
      usage: stores.usage,
      tasks: stores.tasks,
      files: stores.files,
      batchLines: stores.batchLines,
    }),
    pool,
    proxy: needs.proxy,
    submission: needs.submission,
    tasks: stores.tasks,
    keyStore: stores.keys,
    hasher: needs.hasher,
    logger: needs.logger,
    resilience: needs.resilience,
  };
  const build = (next: GatewayConfig, from: ConfigSource) => buildSnapshot(next, from, snapshotParts);
  const first = await build(config, sourceOf(needs.source?.hash ?? objectHash(config)));
  const routing = new LiveRouting(first, (old) => pool.release(old.upstreams));
  needs.running.serve(routing);
  metrics.configured(first.source.hash);
  keys.useDeclared(first.declared);
  return { routing, build, first };
}

/** What outlives snapshots takes in a new one: declared keys, the poller's upstreams, resilience, log level. */
export function takeSnapshot({
  keys,
  poller,
  resilience,
  logger,
}: {
  readonly keys: KeyService;
  readonly poller: TaskPoller | undefined;
  readonly resilience: Resilience;
  readonly logger: Logger;
}): (snapshot: Snapshot) => void {
  return (snapshot) => {
    keys.useDeclared(snapshot.declared);
    poller?.useUpstreams(snapshot.taskUpstreams);
    poller?.useWorkers(snapshot.taskWorkers);
    resilience.configure(snapshot.config.resilience);
    void resilience.start(Object.keys(snapshot.config.upstreams)); // an added upstream may be ejected already
    logger.level = snapshot.config.logging.level;
  };
}

/**
 * The running snapshot, for what is built before the first one and reads it later (the budgets' task
 * holds, video prices); read only once the gateway routes.
 */
export class RunningSnapshot {
  private routing: LiveRouting | undefined;

  readonly read = (): Snapshot => {
    if (!this.routing) throw new Error('the gateway has no running snapshot yet');
    return this.routing.current;
  };

  serve(routing: LiveRouting): void {
    this.routing = routing;
  }
}

/** A configuration given as an object (tests) is named by the hash of its JSON. */
const objectHash = (config: GatewayConfig): string =>
  createHash('sha256').update(JSON.stringify(config)).digest('hex');
