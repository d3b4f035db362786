/**
 * Several pollers on one store, against the simulator's real task API: each task is polled by one poller
 * at a time and billed once; a poller that dies holding leases is taken over once they expire; a task
 * whose submit never completed is resolved, not forgotten. Tasks are submitted through a real gateway
 * whose own poller is off, so the pollers here are the only ones.
 */
import 'reflect-metadata';
import t, { type Test } from 'tap';
import pino from 'pino';
import { Biller } from '../../../core/tasks/billing';
import { TaskPoller } from '../../../core/tasks/poller';
import { deadSubmitTask } from '../../helpers/tasks';
import { Pricing } from '../../../core/pricing';
import type { TaskUpstream } from '../../../core/plugin';
import type { VideoTask } from '../../../core/tasks/task';
import { VIDEOA, VIDEOA_PATHS } from '../../../plugins/upstreams/videoa';
import { videoOptions } from '../../../plugins/upstreams/video-task/video-options';
import { VideoUpstream } from '../../../plugins/upstreams/video-task/video-upstream';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { eventually } from '../../helpers/http';
import { submitVideo, videoBody } from '../../plugins/video-helpers';

const LEASE_MS = 400;
const silent = pino({ level: 'silent' });

/** The gateway's videoa upstream, as the poller sees it, against the test's simulator. */
function videoaUpstream(gw: TestGateway): VideoUpstream {
  const options = videoOptions(VIDEOA_PATHS).parse({
    plugin: 'videoa',
    base_url: `${gw.sim.url}/videoa`,
    api_key: 'sim-videoa-key',
    poll: { every: '20ms', max_every: '60ms', deadline: '30s', concurrency: 16, per_second: 0 },
  });
  return new VideoUpstream(VIDEOA, options, 'videoa-main', { connectMs: 1_000, responseMs: 5_000 });
}

function poller(gw: TestGateway, owner: string, upstream: TaskUpstream): TaskPoller {
  const biller = new Biller(gw.gateway.usage, new Pricing({}));
  return new TaskPoller(
    gw.gateway.tasks,
    new Map([['videoa-main', upstream]]),
    biller,
    { owner, leaseMs: LEASE_MS, sweepEveryMs: 50 },
    silent,
  );
}

async function submitMany(gw: TestGateway, n: number, directives: string): Promise<string[]> {
  const answers = await Promise.all(
    Array.from({ length: n }, () => submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', directives))),
  );
  return answers.map((a) => String(a.body.id));
}

const allBilled = async (gw: TestGateway, ids: string[]): Promise<boolean> => {
  const tasks = await Promise.all(ids.map((id) => gw.gateway.tasks.get(id)));
  return tasks.every((task) => task?.billed === true);
};

async function recordsPerTask(gw: TestGateway, ids: string[]): Promise<number[]> {
  const records = await gw.gateway.usage.list();
  return ids.map((id) => records.filter((r) => r.id === id).length);
}

const gatewayWithoutPoller = (t: Test) =>
  startTestGateway(t, (doc) => {
    (doc.video as Record<string, unknown>).poller = false;
  });

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
