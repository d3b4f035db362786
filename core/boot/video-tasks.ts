/**
 * Video tasks as a gateway runs them: the submit flow (built before the first snapshot, whose task
 * endpoints use it), the budget holds a task keeps until it ends, and this instance's poller (built with
 * the first snapshot's task upstreams, when `video.poller` is on).
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import type { BudgetLedger } from '../billing/budget-ledger';
import type { Snapshot } from '../reload/snapshot';
import type { GatewayMetrics } from '../observability/metrics';
import type { GatewayTracing } from '../observability/tracing/gateway-tracing';
import { taskSubmission, videoPoller, type VideoDeps } from '../plugins/build-video';
import type { LiveInstances } from '../redis/live-instances';
import type { RedisLink } from '../redis/redis-link';
import type { Resilience } from '../routing/resilience';
import type { Stores } from '../stores/stores';
import { needsWork } from '../stores/video-task';
import type { TaskPoller } from '../tasks/poller';
import type { TaskSubmission } from '../tasks/submission';
import type { WithParts } from './part';
import type { RunningSnapshot } from './routing';

export interface VideoNeeds {
  readonly logger: Logger;
  readonly stores: Stores;
  readonly instance: string;
  readonly redis: RedisLink | undefined;
  readonly live: LiveInstances | undefined;
  readonly resilience: Resilience;
  readonly metrics: GatewayMetrics;
  readonly tracing: GatewayTracing | undefined;
  readonly budgets: BudgetLedger;
  /** The running snapshot, for the prices a task is billed at. */
  readonly running: RunningSnapshot;
}

export interface VideoSubmission {
  /** What the poller is built from too. */
  readonly video: VideoDeps;
  readonly submission: TaskSubmission;
}

export function videoSubmission(config: GatewayConfig, needs: VideoNeeds): VideoSubmission {
  const { stores, budgets, running } = needs;
  const video: VideoDeps = {
    config,
    tasks: stores.tasks,
    usage: stores.usage,
    pricing: () => running.read().pricing,
    budgets,
    logger: needs.logger,
    instanceId: needs.instance,
    redis: needs.redis,
    live: needs.live,
    resilience: needs.resilience,
    metrics: needs.metrics,
    spans: needs.tracing?.tasks,
  };
  // Video submits' budget holds last until their tasks end, wherever they end (any instance's poller).
  stores.tasks.watch((task) => {
    if (!needsWork(task)) void budgets.taskEnded(task.id);
  });
  return { video, submission: taskSubmission(video) };
}

export function videoPolling(
  { video }: VideoSubmission,
  first: Pick<Snapshot, 'taskUpstreams' | 'taskWorkers'>,
  needs: readonly string[],
): WithParts<{ poller: TaskPoller | undefined }> {
  const poller = videoPoller(video, first.taskUpstreams);
  if (!poller) return { poller, parts: [] };
  poller.useWorkers(first.taskWorkers);
  return {
    poller,
    // Polls under way finish and release their leases.
    parts: [{ name: 'video poller', needs, start: () => poller.start(), stop: () => poller.stop() }],
  };
}
