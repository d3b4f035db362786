/**
 * Three pollers on one store (as three instances would run them) poll each task no more than one poller
 * does, never two at once; with Redis, their upstream's poll caps hold across the three together.
 */
import 'reflect-metadata';
import pino from 'pino';
import t from 'tap';
import { LiveInstances } from '../../../core/redis/live-instances';
import { RedisLink } from '../../../core/redis/redis-link';
import type { AcquireOptions, TaskStore } from '../../../core/stores/task-store';
import type { PollGates } from '../../../core/tasks/poll-gate';
import { sharedPollGates } from '../../../core/tasks/shared-poll-gate';
import type { Lease } from '../../../core/stores/video-task';
import type { TestGateway } from '../../helpers/gateway';
import { eventually } from '../../helpers/wait';
import { allBilled, gatewayWithoutPoller, poller, submitMany, videoaUpstream } from '../../helpers/pollers';
import { redisPrefix, TEST_REDIS_URL } from '../../helpers/redis';

const TASKS = 200;
const silent = pino({ level: 'silent' });

/**
 * The gateway's store, counting each poller's tries at a turn (a lease asked only if the task is due):
 * tries beyond the polls are turns lost to another poller.
 */
function countingTries(store: TaskStore, tries: Map<string, number>): TaskStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property !== 'acquire') return Reflect.get(target, property, receiver) as unknown;
      return (id: string, lease: Lease, now: number, options?: AcquireOptions) => {
        if (options?.onlyIfDue) tries.set(lease.owner, (tries.get(lease.owner) ?? 0) + 1);
        return target.acquire(id, lease, now, options);
      };
    },
  });
}

/** Runs `count` pollers over freshly submitted tasks until all are billed; returns the tasks' upstream ids. */
async function drain(
  gw: TestGateway,
  count: number,
  directives: string,
  poll: Record<string, unknown>,
  gates?: () => PollGates,
): Promise<{ upstreamIds: string[]; pollsBy: number[]; tries: number }> {
  const tries = new Map<string, number>();
  const store = countingTries(gw.gateway.tasks, tries);
  const pollers = Array.from({ length: count }, (_, i) =>
    poller(gw, `poller-${i}`, videoaUpstream(gw, poll), {
      gates: gates?.(),
      leaseMs: 5_000,
      takeoverMs: 3_000,
      store,
    }),
  );
  // Submitted first: on two shared cores, submits and polls at once would make both runs' timing differ.
  const ids = await submitMany(gw, TASKS, directives);
  for (const p of pollers) p.start();
  try {
    // Generous: on two cores shared with another suite, 200 tasks' polls fall behind; this costs time
    // only when the pollers never finish.
    await eventually(() => allBilled(gw, ids), 60_000, `all ${TASKS} tasks billed by ${count} pollers`);
  } finally {
    await Promise.all(pollers.map((p) => p.stop()));
  }
  const tasks = await Promise.all(ids.map((id) => gw.gateway.tasks.get(id)));
  const pollsBy = await Promise.all(pollers.map(async (p) => (await p.stats()).polls));
  const triesAll = [...tries.values()].reduce((a, b) => a + b, 0);
  return { upstreamIds: tasks.map((task) => task!.upstream_task_id!), pollsBy, tries: triesAll };
}

const meanPolls = (gw: TestGateway, upstreamIds: string[]): number =>
  upstreamIds.reduce((n, id) => n + gw.sim.tasks.get(id)!.polls, 0) / upstreamIds.length;

void t.test(`three pollers, ${TASKS} tasks: as many polls per task as one poller`, async (t) => {
  const gw = await gatewayWithoutPoller(t);
  // Five polls per task, at most about 500 polls a second between them: the first four answer UNKNOWN
  // (a poll like any other), so the count does not hang on how long 200 submits took on a loaded machine.
  const directives = 'task_ms=0 unknown_polls=4 poll_latency_ms=5';
  const every = 250;
  const poll = { every: `${every}ms`, max_every: '400ms' };
  const one = await drain(gw, 1, directives, poll);
  const three = await drain(gw, 3, directives, poll);
  const [alone, together] = [meanPolls(gw, one.upstreamIds), meanPolls(gw, three.upstreamIds)];
  // What three pollers must never do is poll a task again before its interval, which one poller does not.
  t.comment(`${together.toFixed(2)} polls per task with three pollers, ${alone.toFixed(2)} with one`);
  const gaps = three.upstreamIds
    .map((id) => gw.sim.tasks.get(id)!.min_poll_gap_ms)
    .filter((gap): gap is number => gap !== null);
  const tooSoon = gaps.filter((gap) => gap < every * 0.9);
  t.strictSame(
    tooSoon,
    [],
    `no task polled again within its ${every} ms interval (${gaps.length} repeat polls)`,
  );
  t.ok(
    three.pollsBy.every((n) => n > 0),
    `all three polled (${three.pollsBy.join(', ')})`,
  );
  const overlapping = three.upstreamIds.filter((id) => gw.sim.tasks.get(id)!.max_concurrent_polls > 1);
  t.strictSame(overlapping, [], 'no task was ever polled by two pollers at once');
  // A task stays with the poller that polled it last; the others would each try every turn (3 per poll).
  // A poller late by more than the takeover time (a loaded machine) is taken over, hence the margin.
  const polls = three.pollsBy.reduce((a, b) => a + b, 0);
  t.ok(
    three.tries < polls * 2,
    `${three.tries} tries at a turn for ${polls} polls: the pollers did not each try every task`,
  );
});

void t.test('with Redis, the poll caps hold across three pollers together', async (t) => {
  const gw = await gatewayWithoutPoller(t);
  const caps = { per_second: 50, concurrency: 4 };
  // One key prefix for the three, as instances of one gateway share. A command timeout of seconds: a
  // call that times out falls back to local caps (see shared-poll-gate.test.ts), whose polls the shared
  // caps do not count, and a stalled event loop fires the timeout before it reads Redis' answer.
  const prefix = redisPrefix(t);
  const links = await Promise.all(
    [0, 1, 2].map(() =>
      RedisLink.connect({ url: TEST_REDIS_URL, key_prefix: prefix, command_timeout: 5_000 }, silent),
    ),
  );
  const live = links.map((link, i) => new LiveInstances(link, `instance-${i}`));
  for (const l of live) l.start();
  t.teardown(async () => {
    await Promise.all(live.map((l) => l.stop()));
    await Promise.all(links.map((l) => l.close()));
  });
  let next = 0;
  const gates = (): PollGates => {
    const i = next++;
    return sharedPollGates(links[i]!, live[i], 5_000, silent);
  };

  gw.sim.tasks.resetStats();
  const started = Date.now();
  const { pollsBy } = await drain(gw, 3, 'task_ms=0 poll_latency_ms=30', caps, gates);
  const took = Date.now() - started;
  const stats = gw.sim.tasks.statsOf('videoa');
  t.ok(stats.polls >= TASKS, `${stats.polls} polls (${pollsBy.join(', ')} by each) in ${took} ms`);
  t.ok(pollsBy.filter((n) => n > 0).length >= 2, 'the pollers shared the work');
  t.ok(
    stats.max_polls_per_second <= caps.per_second + 1,
    `at most ${stats.max_polls_per_second} polls in any second (cap ${caps.per_second} for all three)`,
  );
  t.ok(
    stats.max_concurrent_polls <= caps.concurrency,
    `at most ${stats.max_concurrent_polls} polls at once (cap ${caps.concurrency} for all three)`,
  );
});
