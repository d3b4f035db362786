/**
 * 1,000 video tasks submitted at once all finish and are billed exactly once, and the upstream is never
 * asked harder than the configured cap: the simulator measures polls in any one second and polls at once.
 * "At once" is 200 submits in flight at a time: a thousand connections opened together overflow a
 * listening socket's backlog (511) on a loaded machine, and the resets are no part of this test.
 */
import t from 'tap';
import { FAST_POLL, startTestGateway } from '../../helpers/gateway';
import { until } from '../../helpers/wait';
import { submitVideo, videoBody } from '../../plugins/video-helpers';

const TASKS = 1_000;
const IN_FLIGHT = 200;
const CAP = { per_second: 250, concurrency: 4 };

/** `make(i)` for each i below `n`, at most `limit` at a time; the results in order. */
async function atMost<T>(limit: number, n: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < n; i = next++) results[i] = await make(i);
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

void t.test(`${TASKS} tasks at once: all finish, each billed once, polls under the cap`, async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
    // A deadline far off: each task is four synced writes, four tasks at a time under the cap, and a
    // loaded disk can take a minute over a thousand of them; a task failed at its deadline is never billed.
    upstreams['videoa-main']!.poll = { ...FAST_POLL, ...CAP, deadline: '10m' };
  });
  // Every task marked billed, as the store tells of each change.
  const billed = new Set<string>();
  const stopWatching = gw.gateway.tasks.watch((task) => {
    if (task.billed) billed.add(task.id);
  });
  t.teardown(stopWatching);
  // A little latency per poll, so polls overlap and the concurrency cap is actually exercised.
  const answers = await atMost(IN_FLIGHT, TASKS, () =>
    submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', 'task_ms=0 poll_latency_ms=10')),
  );
  const refused = answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body]);
  t.equal(
    TASKS - refused.length,
    TASKS,
    `every submit accepted${refused.length ? `; refused: ${JSON.stringify(refused.slice(0, 3))}` : ''}`,
  );
  const ids = answers.map((a) => String(a.body.id));
  t.equal(new Set(ids).size, TASKS, 'distinct task ids');

  // Generous: at the cap the polls alone take seconds, more on a loaded machine; this costs time only
  // when the tasks never all finish.
  await until(
    () => billed.size,
    (n) => n >= TASKS,
    { timeoutMs: 90_000, what: `all ${TASKS} tasks billed` },
  );
  const records = (await gw.gateway.usage.list()).filter((r) => r.once);
  t.equal(records.length, TASKS, 'one usage record per task');
  t.equal(new Set(records.map((r) => r.id)).size, TASKS, 'never two for one task');
  const stats = await gw.gateway.poller!.stats();
  t.match(stats.tasks, { succeeded: TASKS, queued: 0, running: 0, failed: 0 });

  const upstream = gw.sim.tasks.statsOf('videoa');
  t.ok(
    upstream.max_polls_per_second <= CAP.per_second,
    `at most ${upstream.max_polls_per_second} polls in any second (cap ${CAP.per_second})`,
  );
  t.ok(
    upstream.max_concurrent_polls <= CAP.concurrency,
    `at most ${upstream.max_concurrent_polls} polls at once (cap ${CAP.concurrency})`,
  );
  t.ok(upstream.polls >= TASKS, `${upstream.polls} polls for ${TASKS} tasks`);
});
