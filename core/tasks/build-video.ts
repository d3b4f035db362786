/**
 * Composes the video side from gateway.yaml: the task protocols listed under `video.protocols` (each a
 * registered plugin with its own options), their endpoints, the submit flow, and this instance's poller.
 */
import type { DependencyContainer } from 'tsyringe';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import { parseSection } from '../../config/validate';
import type { Endpoint } from '../http/endpoint';
import { taskEndpoints } from '../http/task-endpoints';
import { registeredTaskProtocols, type TaskUpstream } from '../plugin';
import { pluginRegistration, resolvePlugin } from '../plugin-instances';
import type { TaskStore } from '../stores/task-store';
import type { UsageStore } from '../stores/usage-store';
import type { Upstream } from '../upstream/upstream';
import { Biller } from './billing';
import { localPollGates } from './poll-gate';
import { TaskPoller } from './poller';
import { sharedPollGates } from './shared-poll-gate';
import type { Pricing } from '../pricing';
import type { LiveInstances } from '../redis/live-instances';
import type { RedisLink } from '../redis/redis-link';
import type { SpendTracker } from '../spend-tracker';
import { TaskSubmission } from './submission';
import type { Resilience } from '../routing/resilience';

export interface VideoRuntime {
  readonly endpoints: readonly Endpoint[];
  /** Undefined when `video.poller` is off on this instance. */
  readonly poller: TaskPoller | undefined;
}

export interface VideoDeps {
  readonly config: GatewayConfig;
  readonly scope: DependencyContainer;
  readonly upstreams: readonly Upstream[];
  readonly tasks: TaskStore;
  readonly usage: UsageStore;
  readonly pricing: Pricing;
  /** Told of each task billed, for budgets. */
  readonly spend?: SpendTracker | undefined;
  readonly logger: Logger;
  /** Unique per process start: leases of a previous run of this instance are not mistaken for its own. */
  readonly instanceId: string;
  /** With Redis, every upstream's poll caps are shared by all instances, not each instance's own. */
  readonly redis?: RedisLink | undefined;
  readonly live?: LiveInstances | undefined;
  /** Health of the upstreams, and where a submit that created nothing may go next. */
  readonly resilience: Resilience;
}

export function buildVideo(deps: VideoDeps): VideoRuntime {
  const { config, tasks, instanceId } = deps;
  const submission = new TaskSubmission(
    tasks,
    { owner: `${instanceId}/submit`, idempotencyWindowMs: config.video.idempotency_window },
    deps.logger,
    deps.resilience,
  );
  const endpoints = protocols(config, deps.scope).flatMap(([name, protocol]) =>
    taskEndpoints(name, protocol, submission, tasks),
  );
  const taskUpstreams = new Map<string, TaskUpstream>();
  for (const u of deps.upstreams) if (u.plugin.tasks) taskUpstreams.set(u.name, u.plugin.tasks);
  const poller = config.video.poller
    ? new TaskPoller(
        tasks,
        taskUpstreams,
        new Biller(deps.usage, deps.pricing, deps.spend),
        {
          owner: `${instanceId}/poller`,
          leaseMs: config.video.lease,
          sweepEveryMs: config.video.sweep_every,
        },
        deps.logger,
        deps.redis ? sharedPollGates(deps.redis, deps.live, config.video.lease, deps.logger) : localPollGates,
      )
    : undefined;
  return { endpoints, poller };
}

function protocols(config: GatewayConfig, scope: DependencyContainer) {
  const known = registeredTaskProtocols(scope);
  return Object.entries(config.video.protocols).map(([name, raw]) => {
    const path = `video.protocols.${name}`;
    const registration = pluginRegistration(known, name, path, 'video protocol');
    const options = parseSection(registration.options, raw ?? {}, path);
    return [name, resolvePlugin(registration, options, scope)] as const;
  });
}
