/**
 * Several pollers on one store, against the simulator's real task API: each task is polled by one poller
 * at a time and billed once; a poller that dies holding leases is taken over once they expire; a task
 * whose submit never completed is resolved, not forgotten. Tasks are submitted through a real gateway
 * whose own poller is off, so the pollers here are the only ones.
 */
import 'reflect-metadata';
import t from 'tap';
import type { TaskStore } from '../../../core/stores/task-store';
import type { VideoTask } from '../../../core/stores/video-task';
import { eventually, until } from '../../helpers/wait';
import {
  allBilled,
  gatewayWithoutPoller,
  poller,
  pollingWith,
  recordsPerTask,
  submitMany,
  videoaUpstream,
} from '../../helpers/pollers';
import { deadSubmitTask } from '../../helpers/tasks';

/** The lease of a poller whose lease is the subject: short, since the tests wait for it to run out. */
const SHORT_LEASE_MS = 1_000;

void t.test('two pollers on one store: one poll at a time per task, one bill per task', async (t) => {
  const gw = await gatewayWithoutPoller(t);
  const ids = await submitMany(gw, 30, 'task_ms=250 poll_latency_ms=15');
  const upstream = videoaUpstream(gw);
  const pollsBy = { a: 0, b: 0 };
  // A low concurrency cap on each: neither can lease every task at once, so both get work.
  const counting = (name: 'a' | 'b') =>
    pollingWith(
      upstream,
      (id) => {
        pollsBy[name]++;
        return upstream.poll(id);
      },
      { ...upstream.polling, concurrency: 3 },
    );
  const a = poller(gw, 'poller-a', counting('a'));
  const b = poller(gw, 'poller-b', counting('b'));
  a.start();
  b.start();
  t.teardown(() => Promise.all([a.stop(), b.stop()]));

  await eventually(() => allBilled(gw, ids), 30_000, 'every task billed');
  const tasks = (await Promise.all(ids.map((id) => gw.gateway.tasks.get(id)))) as VideoTask[];
  t.ok(
    tasks.every((task) => task.status === 'succeeded'),
    'every task succeeded',
  );
  const overlapping = tasks.filter(
    (task) => gw.sim.tasks.get(task.upstream_task_id!)!.max_concurrent_polls > 1,
  );
  t.strictSame(overlapping, [], 'no task was ever polled by two pollers at once');
  t.ok(pollsBy.a > 0 && pollsBy.b > 0, `both pollers worked (${pollsBy.a} and ${pollsBy.b} polls)`);
  t.strictSame(
    await recordsPerTask(gw, ids),
    ids.map(() => 1),
    'exactly one usage record per task',
  );
  const [sa, sb] = await Promise.all([a.stats(), b.stats()]);
  t.equal(sa.billed + sb.billed, ids.length, 'billed once between them');
});

/** The store, noting each lease `acquire` won: the task, and the time (the caller's `now`) it was taken. */
function notingLeases(store: TaskStore, won: { id: string; now: number }[]): TaskStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property !== 'acquire') return Reflect.get(target, property, receiver) as unknown;
      return async (...args: Parameters<TaskStore['acquire']>) => {
        const leased = await target.acquire(...args);
        if (leased) won.push({ id: args[0], now: args[2] });
        return leased;
      };
    },
  });
}

void t.test('a poller that dies holding leases: another takes over once they expire', async (t) => {
  const gw = await gatewayWithoutPoller(t);
  const ids = await submitMany(gw, 10, 'task_ms=100');
  const upstream = videoaUpstream(gw);
  // The doomed poller takes its leases and then hangs in every poll, like a process that froze and died.
  const hanging = pollingWith(upstream, () => new Promise(() => undefined));
  const doomed = poller(gw, 'doomed', hanging, { leaseMs: SHORT_LEASE_MS });
  doomed.start();
  t.teardown(() => doomed.abandon());
  await until(
    () => Promise.all(ids.map((id) => gw.gateway.tasks.get(id))),
    (tasks) => tasks.every((task) => task?.lease?.owner === 'doomed'),
    { what: 'every task leased by the doomed poller' },
  );
  doomed.abandon();
  // Where its leases end: a renewal still on its way may only move them later.
  const leasedUntil = new Map<string, number>();
  for (const id of ids) leasedUntil.set(id, (await gw.gateway.tasks.get(id))!.lease!.until);

  const won: { id: string; now: number }[] = [];
  const heir = poller(gw, 'heir', upstream, { store: notingLeases(gw.gateway.tasks, won) });
  heir.start();
  t.teardown(() => heir.stop());
  await until(
    () => Promise.all(ids.map((id) => gw.gateway.tasks.get(id))),
    (tasks) => tasks.every((task) => task?.lease?.owner !== 'doomed'),
    { what: 'every task taken over' },
  );
  const early = ids.filter((id) => won.some((w) => w.id === id && w.now < leasedUntil.get(id)!));
  t.strictSame(early, [], 'nobody took a task over before its lease expired');
  await eventually(() => allBilled(gw, ids), 10_000, 'every task billed');
  t.strictSame(
    await recordsPerTask(gw, ids),
    ids.map(() => 1),
    'each task billed once',
  );
});

void t.test('a task whose submit never completed is failed (submit_interrupted), not billed', async (t) => {
  const gw = await gatewayWithoutPoller(t);
  const orphan = deadSubmitTask({ id: 'video_orphan_of_a_crash_0001', request_id: 'crashed-request' });
  await gw.gateway.tasks.insert(orphan, 0);
  const p = poller(gw, 'sweeper', videoaUpstream(gw));
  p.start();
  t.teardown(() => p.stop());
  const task = await until(
    () => gw.gateway.tasks.get(orphan.id),
    (task) => task?.status === 'failed',
    { what: 'the orphan failed' },
  );
  t.match(task, { status: 'failed', error: { code: 'submit_interrupted' }, billed: false, lease: null });
  t.strictSame(await gw.gateway.usage.list({ id: orphan.id }), []);
});

void t.test(
  'a poll slower than the lease keeps renewing it: nobody else takes the task meanwhile',
  async (t) => {
    const gw = await gatewayWithoutPoller(t);
    const [id] = (await submitMany(gw, 1, 'task_ms=100')) as [string];
    const upstream = videoaUpstream(gw);
    // The poll is held until the test lets it go: it is under way for as long as the test looks.
    let answer = (): void => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const held = pollingWith(upstream, async (...args) => {
      await answered;
      return upstream.poll(...args);
    });
    const slow = poller(gw, 'slow', held, { leaseMs: SHORT_LEASE_MS });
    slow.start();
    t.teardown(() => {
      answer();
      return slow.stop();
    });
    const leased = await until(
      () => gw.gateway.tasks.get(id),
      (task) => task?.lease?.owner === 'slow',
      { what: "the slow poller's lease" },
    );
    const firstUntil = leased!.lease!.until;
    const renewed = await until(
      () => gw.gateway.tasks.get(id),
      (task) => (task?.lease?.until ?? 0) > firstUntil,
      { what: 'the lease renewed during the poll' },
    );
    t.equal(renewed?.lease?.owner, 'slow', 'the lease was renewed during the poll');
    const other = await gw.gateway.tasks.acquire(
      id,
      { owner: 'other', until: firstUntil + 1_000 },
      firstUntil,
    );
    t.equal(other, undefined, 'another poller cannot take it, past its first lease');
    answer();
    await eventually(() => allBilled(gw, [id]), 10_000, 'the task billed');
  },
);
