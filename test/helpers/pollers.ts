/**
 * Pollers of the test's own over a gateway's store: the gateway's own poller is off, so these are the
 * only ones, each as another instance would run it (its own owner name, limiters and gates).
 */
import { Agent } from 'node:http';
import pino from 'pino';
import type { Test } from 'tap';
import type { TaskUpstream } from '../../core/contracts/task-upstream';
import { Pricing } from '../../core/billing/pricing';
import { Biller } from '../../core/tasks/billing';
import type { TaskStore } from '../../core/stores/task-store';
import type { PollGates } from '../../core/tasks/poll-gate';
import { TaskPoller } from '../../core/tasks/poller';
import type { TaskSpans } from '../../core/observability/tracing/task-spans';
import { UpstreamCaller } from '../../core/upstream/upstream-call';
import { VIDEOA, VIDEOA_PATHS } from '../../plugins/upstreams/videoa';
import { videoOptions } from '../../plugins/upstreams/video-task/video-options';
import { VideoUpstream } from '../../plugins/upstreams/video-task/video-upstream';
import { submitVideo, videoBody } from '../plugins/video-helpers';
import { startTestGateway, type TestGateway } from './gateway';

/**
 * Seconds, as in production (30 s): a lease must outlast any stall of a loaded machine's event loop
 * between taking it and the change after the poll, or another poller polls the task too. Tests of a
 * lease running out give their poller a shorter one and wait for the outcome.
 */
export const LEASE_MS = 5_000;
/** Short, as the tests' poll intervals are; the gateway's is 2 s. */
export const TAKEOVER_MS = 100;
/**
 * The sweep is the safety net for a change no event told of (a lease run out, a poller gone): a tenth of
 * the gateway's 5 s. Each sweep reschedules every task due, so sweeping much more often only loads the
 * machine, and with it every poller's lateness.
 */
const SWEEP_EVERY_MS = 500;
const silent = pino({ level: 'silent' });

const FAST = { every: '20ms', max_every: '60ms', deadline: '30s', concurrency: 16, per_second: 0 };

/** The gateway's videoa upstream, as the poller sees it, against the test's simulator. */
export function videoaUpstream(gw: TestGateway, poll: Record<string, unknown> = {}): VideoUpstream {
  const options = videoOptions(VIDEOA_PATHS).parse({
    plugin: 'videoa',
    base_url: `${gw.sim.url}/videoa`,
    api_key: 'sim-videoa-key',
    poll: { ...FAST, ...poll },
  });
  // Timeouts with room for a stalled event loop: a timer due during a stall fires before the socket's
  // news is read, so a connect of a millisecond would look like one that timed out.
  const caller = new UpstreamCaller('videoa-main', new Agent({ keepAlive: true }), {
    connectMs: 5_000,
    responseMs: 10_000,
  });
  return new VideoUpstream(VIDEOA, options, caller);
}

/** `upstream` with its polls made by `poll` (which may call the upstream's own): counted, held, hung. */
export function pollingWith(
  upstream: TaskUpstream,
  poll: TaskUpstream['poll'],
  polling = upstream.polling,
): TaskUpstream {
  return {
    polling,
    check: upstream.check.bind(upstream),
    estimate: upstream.estimate.bind(upstream),
    submit: upstream.submit.bind(upstream),
    poll,
  };
}

export interface TestPollerOptions {
  readonly gates?: PollGates | undefined;
  readonly leaseMs?: number;
  readonly takeoverMs?: number;
  /** The gateway's own store unless given (a wrapper around it, say). */
  readonly store?: TaskStore;
  /** What bills the tasks: nothing is priced unless given. */
  readonly pricing?: Pricing;
  /** The poller's tracing, as another instance's. */
  readonly spans?: TaskSpans;
}

export function poller(
  gw: TestGateway,
  owner: string,
  upstream: TaskUpstream,
  {
    gates,
    leaseMs = LEASE_MS,
    takeoverMs = TAKEOVER_MS,
    store = gw.gateway.tasks,
    pricing = new Pricing({}),
    spans,
  }: TestPollerOptions = {},
): TaskPoller {
  const biller = new Biller(gw.gateway.usage, () => pricing);
  return new TaskPoller(
    store,
    new Map([['videoa-main', upstream]]),
    biller,
    { owner, leaseMs, sweepEveryMs: SWEEP_EVERY_MS, takeoverMs },
    silent,
    gates,
    undefined,
    spans,
  );
}

/** Submits `n` tasks together; throws, with what was answered, unless every submit was accepted. */
export async function submitMany(gw: TestGateway, n: number, directives: string): Promise<string[]> {
  const answers = await Promise.all(
    Array.from({ length: n }, () => submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', directives))),
  );
  const refused = answers.filter((a) => a.status !== 200);
  if (refused.length > 0) {
    const some = refused.slice(0, 3).map((a) => [a.status, a.body]);
    throw new Error(`${refused.length} of ${n} submits refused, as ${JSON.stringify(some)}`);
  }
  return answers.map((a) => String(a.body.id));
}

export const allBilled = async (gw: TestGateway, ids: string[]): Promise<boolean> => {
  const tasks = await Promise.all(ids.map((id) => gw.gateway.tasks.get(id)));
  return tasks.every((task) => task?.billed === true);
};

export async function recordsPerTask(gw: TestGateway, ids: string[]): Promise<number[]> {
  const records = await gw.gateway.usage.list();
  return ids.map((id) => records.filter((r) => r.id === id).length);
}

export const gatewayWithoutPoller = (t: Test) =>
  startTestGateway(t, (doc) => {
    (doc.video as Record<string, unknown>).poller = false;
  });
