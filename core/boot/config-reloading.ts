/**
 * Hot reload as a running gateway wires it: the reloader of the configuration file, the watcher that
 * triggers it when the file changes, and the announcer that tells the other instances sharing Redis (and
 * hears them). A gateway started without a file has none of these and keeps its one snapshot.
 */
import type { Logger } from 'pino';
import type { Env } from '../../config/env';
import type { GatewayConfig } from '../../config/schema';
import type { ConfigControl } from '../admin/config-routes';
import type { GatewayMetrics } from '../observability/metrics';
import type { RedisLink } from '../redis/redis-link';
import { ConfigAnnouncer } from '../reload/config-announcer';
import {
  ConfigReloader,
  sourceStatus,
  type ReloadResult,
  type ReloadTrigger,
} from '../reload/config-reloader';
import { ConfigWatcher } from '../reload/config-watcher';
import type { LiveRouting } from '../reload/live-routing';
import type { ConfigSource, Snapshot } from '../reload/snapshot';
import type { Part } from './part';

export interface ReloadingNeeds {
  readonly config: GatewayConfig;
  /** The file the configuration was read from, when there is one. */
  readonly file: string | undefined;
  readonly env: Env;
  readonly instance: string;
  readonly redis: RedisLink | undefined;
  readonly routing: LiveRouting;
  readonly build: (next: GatewayConfig, from: ConfigSource) => Promise<Snapshot>;
  /** What outlives snapshots takes in a new one (declared keys, the poller's upstreams, resilience…). */
  readonly applied: (snapshot: Snapshot) => void;
  readonly metrics: GatewayMetrics;
  readonly logger: Logger;
  /** The parts a reload builds with and applies to: the watcher and the announcer run within them. */
  readonly partsNeeded: readonly string[];
}

export interface ConfigReloading {
  readonly reload: (trigger: ReloadTrigger) => Promise<ReloadResult> | undefined;
  /** The admin API's view and control of the configuration. */
  readonly control: ConfigControl;
  /** The watcher and the announcer, to join the gateway's lifecycle. */
  readonly parts: readonly Part[];
}

export function configReloading(needs: ReloadingNeeds): ConfigReloading {
  const { config, file, env, instance, redis, routing, build, metrics, logger, partsNeeded } = needs;
  const announcer =
    redis && file ? new ConfigAnnouncer(redis, instance, () => reloader!.status(), logger) : undefined;
  const reloader =
    file === undefined
      ? undefined
      : new ConfigReloader(
          file,
          env,
          routing,
          build,
          (snapshot) => {
            needs.applied(snapshot);
            metrics.configured(snapshot.source.hash);
            void announcer?.announce(snapshot.source.hash);
          },
          logger,
        );
  const reload = (trigger: ReloadTrigger) => {
    const attempt = reloader?.reload(trigger);
    // A refused reload is recorded too, so every instance's error shows in GET /admin/config.
    void attempt?.then((r) => {
      metrics.reloaded(r.applied ? 'applied' : r.error ? 'refused' : 'unchanged');
      if (r.error) void announcer?.record();
    });
    return attempt;
  };
  const watcher =
    file && config.reload.watch
      ? new ConfigWatcher(file, config.reload.settle, () => void reload('file'), logger)
      : undefined;
  const control: ConfigControl = {
    instance,
    watching: watcher !== undefined,
    // Started without a file, it keeps its one snapshot: its status is that of a start.
    status: () => reloader?.status() ?? sourceStatus(routing.current.source, ''),
    reload: () => reload('admin'),
    instances: async () => announcer?.instances(),
  };
  const parts: Part[] = [];
  if (watcher)
    parts.push({
      name: 'config watcher',
      needs: partsNeeded,
      start: () => watcher.start(),
      stop: () => watcher.stop(),
    });
  if (announcer) {
    const onAnnounced = (hash: string) => {
      if (hash !== routing.current.source.hash) void reload('announce');
    };
    parts.push({
      name: 'config announcer',
      needs: partsNeeded,
      start: () => announcer.start(onAnnounced),
      stop: () => announcer.stop(),
    });
  }
  return { reload, control, parts };
}
