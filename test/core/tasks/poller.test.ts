/**
 * Several pollers on one store, against the simulator's real task API: each task is polled by one poller
 * at a time and billed once; a poller that dies holding leases is taken over once they expire; a task
 * whose submit never completed is resolved, not forgotten. Tasks are submitted through a real gateway
 * whose own poller is off, so the pollers here are the only ones.
 */
import 'reflect-metadata';
import t from 'tap';
import type { TaskUpstream } from '../../../core/contracts/plugin';
import type { VideoTask } from '../../../core/stores/video-task';
import { eventually } from '../../helpers/wait';
import {
  allBilled,
  gatewayWithoutPoller,
  LEASE_MS,
  poller,
  recordsPerTask,
  submitMany,
  videoaUpstream,
} from '../../helpers/pollers';
import { deadSubmitTask } from '../../helpers/tasks';

void t.test('two pollers on one store: one poll at a time per task, one bill per task', async (t) => {
  const gw = await gatewayWithoutPoller(t);
  const ids = await submitMany(gw, 30, 'task_ms=250 poll_latency_ms=15');
  const upstream = videoaUpstream(gw);
  const pollsBy = { a: 0, b: 0 };
  // A low concurrency cap on each: neither can lease every task at once, so both get work.
  const counting = (name: 'a' | 'b'): TaskUpstream => ({
    polling: { ...upstream.polling, concurrency: 3 },
    check: upstream.check.bind(upstream),
    estimate: upstream.estimate.bind(upstream),
    submit: upstream.submit.bind(upstream),
    poll: (id) => {
      pollsBy[name]++;
      return upstream.poll(id);
    },
  });
  const a = poller(gw, 'poller-a', counting('a'));
  const b = poller(gw, 'poller-b', counting('b'));
  a.start();
  b.start();
  t.teardown(() => Promise.all([a.stop(), b.stop()]));

  await eventually(() => allBilled(gw, ids), 15_000);
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

void t.test('a poller that dies holding leases: another takes over once they expire', async (t) => {
  const gw = await gatewayWithoutPoller(t);
  const ids = await submitMany(gw, 10, 'task_ms=100');
  const upstream = videoaUpstream(gw);
  // The doomed poller takes its leases and then hangs in every poll, like a process that froze and died.
  const hanging: TaskUpstream = {
    polling: upstream.polling,
    check: upstream.check.bind(upstream),
    estimate: upstream.estimate.bind(upstream),
    submit: upstream.submit.bind(upstream),
    poll: () => new Promise(() => undefined),
  };
  const doomed = poller(gw, 'doomed', hanging);
  doomed.start();
  t.teardown(() => doomed.abandon());
  await eventually(async () => {
    const tasks = await Promise.all(ids.map((id) => gw.gateway.tasks.get(id)));
    return tasks.every((task) => task?.lease?.owner === 'doomed');
  }, 5_000);
  const died = Date.now();
  doomed.abandon();

  const heir = poller(gw, 'heir', upstream);
  heir.start();
  t.teardown(() => heir.stop());
  await eventually(async () => {
    const tasks = await Promise.all(ids.map((id) => gw.gateway.tasks.get(id)));
    return tasks.every((task) => task?.lease?.owner !== 'doomed');
  }, 5_000);
  t.ok(Date.now() - died >= LEASE_MS - 50, 'nobody took a task over before its lease expired');
  await eventually(() => allBilled(gw, ids), 10_000);
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
  await eventually(async () => (await gw.gateway.tasks.get(orphan.id))?.status === 'failed', 5_000);
  const task = await gw.gateway.tasks.get(orphan.id);
  t.match(task, { status: 'failed', error: { code: 'submit_interrupted' }, billed: false, lease: null });
  t.strictSame(await gw.gateway.usage.list({ id: orphan.id }), []);
});

void t.test(
  'a poll slower than the lease keeps renewing it: nobody else takes the task meanwhile',
  async (t) => {
    const gw = await gatewayWithoutPoller(t);
    const [id] = await submitMany(gw, 1, `task_ms=100 poll_latency_ms=${LEASE_MS * 4}`);
    const slow = poller(gw, 'slow', videoaUpstream(gw));
    slow.start();
    t.teardown(() => slow.stop());
    await eventually(async () => (await gw.gateway.tasks.get(id!))?.lease?.owner === 'slow');
    await new Promise((r) => setTimeout(r, LEASE_MS * 2)); // the poll is still under way, past its first lease
    const task = await gw.gateway.tasks.get(id!);
    t.equal(task?.lease?.owner, 'slow');
    t.ok((task?.lease?.until ?? 0) > Date.now(), 'the lease was renewed during the poll');
    const other = await gw.gateway.tasks.acquire(
      id!,
      { owner: 'other', until: Date.now() + 1_000 },
      Date.now(),
    );
    t.equal(other, undefined, 'another poller cannot take it');
    await eventually(() => allBilled(gw, [id!]), 10_000);
  },
);
