/**
 * Composes the video side from gateway.yaml: the task protocols listed under `video.protocols` (each a
 * registered plugin with its own options) and their endpoints, rebuilt with each configuration snapshot;
 * the submit flow and this instance's poller, built once.
 */
import type { DependencyContainer } from 'tsyringe';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import { parseSection } from '../../config/validate';
import type { GatewayMetrics } from '../observability/metrics';
import type { TaskSpans } from '../observability/tracing/task-spans';
import { taskEndpoints } from '../tasks/task-endpoints';
import { registeredPlugins } from './plugin-container';
import type { Endpoint } from '../request/served-request';
import type { TaskUpstream } from '../contracts/task-upstream';
import { pluginRegistration, resolvePlugin } from './plugin-instances';
import type { TaskStore } from '../stores/task-store';
import type { UsageStore } from '../stores/usage-store';
import type { Upstream } from '../upstream/upstream';
import { Biller } from '../tasks/billing';
import { localPollGates } from '../tasks/poll-gate';
import { TaskPoller } from '../tasks/poller';
import { sharedPollGates } from '../tasks/shared-poll-gate';
import type { Pricing } from '../billing/pricing';
import type { LiveInstances } from '../redis/live-instances';
import type { RedisLink } from '../redis/redis-link';
import type { BudgetLedger } from '../billing/budget-ledger';
import { TaskSubmission } from '../tasks/submission';
import type { Resilience } from '../routing/resilience';

export interface VideoDeps {
  readonly config: GatewayConfig;
  readonly tasks: TaskStore;
  readonly usage: UsageStore;
  /** The prices of the running configuration. */
  readonly pricing: () => Pricing;
  /** Told of each task billed, for budgets. */
  readonly budgets?: BudgetLedger | undefined;
  readonly logger: Logger;
  /** Unique per process start: leases of a previous run of this instance are not mistaken for its own. */
  readonly instanceId: string;
  /** With Redis, every upstream's poll caps are shared by all instances, not each instance's own. */
  readonly redis?: RedisLink | undefined;
  readonly live?: LiveInstances | undefined;
  /** Health of the upstreams, and where a submit that created nothing may go next. */
  readonly resilience: Resilience;
  /** Told of polls and of tasks billed. */
  readonly metrics?: GatewayMetrics | undefined;
  /** The spans of traced tasks' polls and billing; absent when tracing is off. */
  readonly spans?: TaskSpans | undefined;
}

const pollerName = (instanceId: string): string => `${instanceId}/poller`;

/**
 * How long past a task's due time the other instances' pollers leave it to the poller that polled it
 * last: well beyond the change stream's delivery of that poller's lease, so a live poller is never raced.
 */
const TAKEOVER_MS = 2_000;

/** The submit flow, shared by every snapshot's task endpoints (its idempotency window is start-up only). */
export function taskSubmission(deps: VideoDeps): TaskSubmission {
  const { config, tasks, instanceId, logger } = deps;
  const options = {
    owner: `${instanceId}/submit`,
    idempotencyWindowMs: config.video.idempotency_window,
    pollerOwner: config.video.poller ? pollerName(instanceId) : undefined,
  };
  return new TaskSubmission(tasks, options, logger, deps.resilience);
}

/** This instance's poller (undefined when `video.poller` is off), polling the given task upstreams. */
export function videoPoller(
  deps: VideoDeps,
  upstreams: ReadonlyMap<string, TaskUpstream>,
): TaskPoller | undefined {
  const { config, instanceId } = deps;
  if (!config.video.poller) return undefined;
  return new TaskPoller(
    deps.tasks,
    upstreams,
    new Biller(deps.usage, deps.pricing, deps.budgets, (record) =>
      deps.metrics?.billed(record.model, record.total_tokens, record.cost_micros),
    ),
    {
      owner: pollerName(instanceId),
      leaseMs: config.video.lease,
      sweepEveryMs: config.video.sweep_every,
      takeoverMs: TAKEOVER_MS,
    },
    deps.logger,
    deps.redis ? sharedPollGates(deps.redis, deps.live, config.video.lease, deps.logger) : localPollGates,
    deps.metrics,
    deps.spans,
  );
}

/** The endpoints of the task protocols listed under `video.protocols` (rebuilt with each snapshot). */
export function videoEndpoints(
  config: GatewayConfig,
  scope: DependencyContainer,
  submission: TaskSubmission,
  tasks: TaskStore,
): Endpoint[] {
  return protocols(config, scope).flatMap(([name, protocol]) =>
    taskEndpoints(name, protocol, submission, tasks),
  );
}

/** The task side of each upstream that has one, by upstream name. */
export function taskUpstreams(upstreams: readonly Upstream[]): Map<string, TaskUpstream> {
  const byName = new Map<string, TaskUpstream>();
  for (const u of upstreams) if (u.plugin.tasks) byName.set(u.name, u.plugin.tasks);
  return byName;
}

function protocols(config: GatewayConfig, scope: DependencyContainer) {
  const known = registeredPlugins('task-protocol', scope);
  return Object.entries(config.video.protocols).map(([name, raw]) => {
    const path = `video.protocols.${name}`;
    const registration = pluginRegistration(known, name, path, 'video protocol');
    const options = parseSection(registration.options, raw ?? {}, path);
    return [name, resolvePlugin(registration, options, scope)] as const;
  });
}
