/**
 * Poll waits are jittered: tasks submitted together get their polls spread over an interval instead of
 * polling in step, and every wait stays within `poll.every` and `poll.max_every`.
 */
import 'reflect-metadata';
import t from 'tap';
import type { PollPolicy } from '../../../core/contracts/task-upstream';
import type { VideoTask } from '../../../core/stores/video-task';
import { errorDelay, firstPollDelay, nextPollDelay } from '../../../core/tasks/poll-delay';
import { FAST_POLL, startTestGateway } from '../../helpers/gateway';
import { until } from '../../helpers/wait';
import { poller, submitMany, videoaUpstream } from '../../helpers/pollers';

const POLICY: PollPolicy = { everyMs: 1_000, maxEveryMs: 8_000, deadlineMs: 0, concurrency: 1, perSecond: 0 };
/** `n` draws evenly over [0, 1). */
const draws = (n: number): number[] => Array.from({ length: n }, (_, i) => (i / (n - 1)) * 0.999_999);
const spread = (values: readonly number[]): number => Math.max(...values) - Math.min(...values);

t.test('each wait is drawn over a window around the backoff, inside every and max_every', (t) => {
  const at = (delay: (draw: () => number) => number) => draws(11).map((d) => delay(() => d));
  const first = at((draw) => firstPollDelay(POLICY, draw));
  t.ok(
    Math.min(...first) >= 1_000 && Math.max(...first) <= 1_500,
    `first poll within 1-1.5 s (${first.join(', ')})`,
  );
  t.ok(spread(first) >= 400, 'and spread over it');
  for (const polls of [1, 2, 3, 20]) {
    const next = at((draw) => nextPollDelay(POLICY, polls, draw));
    t.ok(Math.min(...next) >= 1_000 && Math.max(...next) <= 8_000, `after ${polls} polls: within bounds`);
    t.ok(
      spread(next) >= 1_000,
      `after ${polls} polls: spread (${Math.min(...next)}-${Math.max(...next)} ms)`,
    );
  }
  const capped = at((draw) => errorDelay(POLICY, 30, draw));
  t.equal(Math.max(...capped), 8_000, 'at the cap: never past max_every');
  t.equal(Math.min(...capped), 4_000, 'and spread below it, not piled on it');
  t.end();
});

t.test('tasks submitted at the same instant are polled spread over an interval, not together', async (t) => {
  const poll = { ...FAST_POLL, every: '400ms', max_every: '2s' };
  const gw = await startTestGateway(t, (doc) => {
    (doc.video as Record<string, unknown>).poller = false; // this test's poller is the only one
    const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
    upstreams['videoa-main']!.poll = poll;
  });
  const ids = await submitMany(gw, 24, 'task_ms=60000');
  const read = async () => (await Promise.all(ids.map((id) => gw.gateway.tasks.get(id)))) as VideoTask[];

  // Each task's wait, from the moment it was written (the upstream's acceptance, then each poll's result).
  const wait = (task: VideoTask) => task.next_poll_at - task.updated_at;
  const firstDue = (await read()).map(wait);
  t.ok(
    firstDue.every((ms) => ms >= 400 - 5 && ms <= 600 + 5),
    `first polls 400-600 ms after the upstream accepted (${Math.min(...firstDue)}-${Math.max(...firstDue)})`,
  );
  t.ok(spread(firstDue) >= 100, `spread over ${spread(firstDue)} ms`);

  // Each task as its first poll's change wrote it (the store tells every change): read afterwards, a
  // task may already be leased for its second poll, with a later updated_at.
  const afterFirstPoll = new Map<string, VideoTask>();
  const stopWatching = gw.gateway.tasks.watch((task) => {
    if (task.polls === 1 && ids.includes(task.id) && !afterFirstPoll.has(task.id))
      afterFirstPoll.set(task.id, task);
  });
  t.teardown(stopWatching);
  const p = poller(gw, 'jitter', videoaUpstream(gw, poll));
  p.start();
  t.teardown(() => p.stop());
  await until(
    () => afterFirstPoll.size,
    (n) => n === ids.length,
    { what: 'every task polled once' },
  );
  await p.stop();
  const waits = [...afterFirstPoll.values()].map(wait);
  t.ok(waits.length >= 12, `${waits.length} tasks polled once`);
  t.ok(
    waits.every((ms) => ms >= 400 - 5 && ms <= 900 + 5),
    `next polls 400-900 ms later (${Math.min(...waits)}-${Math.max(...waits)})`,
  );
  t.ok(spread(waits) >= 150, `and spread over ${spread(waits)} ms, not one interval for all`);
});
