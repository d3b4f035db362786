import t from 'tap';
import { readControls } from '../../simulator/controls';
import { matchRoute, routeTable } from '../../simulator/router';
import { PollMeter } from '../../simulator/tasks/poll-meter';
import { TaskRegistry } from '../../simulator/tasks/registry';
import { phaseAt, phaseStart, planTask, pollFate, type SimTask } from '../../simulator/tasks/timeline';
import { beijingStamp, beijingTime } from '../../simulator/tasks/vendor-clock';
import { inlineFlags } from '../../simulator/videob/flags';

const task = (plan: SimTask['plan'], submittedAt = 1000): SimTask => ({
  family: 'videoa',
  id: 'task-1',
  model: 'm',
  video: { resolution: '720P', duration: 5, ratio: null },
  plan,
  submittedAt,
  videoUrl: 'http://sim/_sim/videos/task-1.mp4',
});

void t.test('task controls', (t) => {
  t.strictSame(
    readControls(
      {},
      'a cat #sim task_ms=50 queue_ms=10 fail cancel poll_errors=2 unknown_polls=1 poll_latency_ms=5',
    ),
    { taskMs: 50, queueMs: 10, fail: true, cancel: true, pollErrors: 2, unknownPolls: 1, pollLatencyMs: 5 },
  );
  t.strictSame(
    readControls({ 'x-sim-task-ms': '7', 'x-sim-fail': 'no' }, '#sim task_ms=50 fail'),
    { taskMs: 7, fail: false },
    'headers win',
  );
  t.throws(() => readControls({}, '#sim task_ms=-1'), 'no negative task time');
  t.throws(() => readControls({}, '#sim poll_errors=x'), 'poll_errors is a count');
  t.end();
});

void t.test('planTask', (t) => {
  t.strictSame(planTask({}), {
    queueMs: 500,
    taskMs: 2000,
    outcome: 'succeeded',
    pollErrors: 0,
    unknownPolls: 0,
    pollLatencyMs: 0,
  });
  t.match(planTask({ taskMs: 100 }), { queueMs: 25, taskMs: 100 }, 'the queue is a quarter of the task');
  t.match(planTask({ taskMs: 100, queueMs: 500 }), { queueMs: 100 }, 'the queue never outlasts the task');
  t.match(planTask({ fail: true }), { outcome: 'failed' });
  t.match(planTask({ fail: true, cancel: true }), { outcome: 'cancelled' }, 'cancel wins');
  t.end();
});

void t.test('phaseAt and phaseStart follow the timeline', (t) => {
  const x = task(planTask({ taskMs: 100, queueMs: 30, fail: true }));
  t.equal(phaseAt(x, 1000), 'queued');
  t.equal(phaseAt(x, 1029), 'queued');
  t.equal(phaseAt(x, 1030), 'running');
  t.equal(phaseAt(x, 1099), 'running');
  t.equal(phaseAt(x, 1100), 'failed');
  t.equal(phaseStart(x, 'running'), 1030);
  t.equal(phaseStart(x, 'failed'), 1100);
  t.equal(phaseAt(task(planTask({ taskMs: 0 })), 1000), 'succeeded', 'task_ms=0 is done at once');
  t.end();
});

void t.test('pollFate: errors first, then unknowns, then the status', (t) => {
  const plan = planTask({ pollErrors: 2, unknownPolls: 1 });
  t.strictSame(
    [1, 2, 3, 4].map((n) => pollFate(plan, n)),
    ['error', 'error', 'unknown', 'status'],
  );
  t.end();
});

void t.test('PollMeter', (t) => {
  const meter = new PollMeter();
  // Three polls in 999 ms, then two more that each push the oldest out of the window.
  for (const at of [0, 500, 999]) meter.begin(at);
  t.match(meter.view(), { polls: 3, in_flight: 3, max_concurrent_polls: 3, max_polls_per_second: 3 });
  for (let i = 0; i < 3; i++) meter.end();
  meter.begin(1000);
  meter.begin(1500);
  t.match(meter.view(), { polls: 5, in_flight: 2, max_concurrent_polls: 3, max_polls_per_second: 3 });
  for (const at of [1600, 1700]) meter.begin(at);
  t.match(meter.view(), { max_polls_per_second: 5 }, '999 to 1700 lie within one second');
  meter.begin(2000);
  t.match(meter.view(), { max_polls_per_second: 5 }, 'at 2000 the window holds 1000 to 2000 only');
  t.end();
});

void t.test('PollMeter stays exact over long runs', (t) => {
  const meter = new PollMeter();
  // 10 polls a second for 600 s: the window never holds more than 10.
  for (let i = 0; i < 6000; i++) meter.begin(i * 100);
  t.match(meter.view(), { polls: 6000, max_polls_per_second: 10 });
  t.end();
});

void t.test('TaskRegistry counts polls per id and per family', (t) => {
  const reg = new TaskRegistry();
  reg.submit(task(planTask({ taskMs: 0 }), Date.now()));
  const first = reg.beginPoll('videoa', 'task-1');
  const second = reg.beginPoll('videoa', 'task-1');
  t.equal(first.number, 1);
  t.equal(second.number, 2);
  t.ok(first.task, 'the issuing family finds the task');
  t.notOk(reg.beginPoll('videob', 'task-1').task, 'another family does not');
  first.end();
  first.end();
  second.end();
  t.match(reg.get('task-1'), { status: 'succeeded', polls: 3, max_concurrent_polls: 3 });
  t.match(reg.statsOf('videoa'), { submitted: 1, polls: 2, in_flight: 0, max_concurrent_polls: 2 });
  t.match(reg.statsOf('videob'), { polls: 1, in_flight: 1 });
  t.strictSame(reg.statsOf('nobody'), {
    submitted: 0,
    polls: 0,
    in_flight: 0,
    max_concurrent_polls: 0,
    max_polls_per_second: 0,
  });
  reg.beginPoll('videob', 'never-issued').end();
  t.match(reg.get('never-issued'), { family: 'videob', status: 'unknown', polls: 1 });
  t.equal(reg.get('never-issued')?.model, undefined, 'an unknown id has no submitted fields');
  t.equal(reg.list('videob').length, 1);
  reg.resetStats();
  t.strictSame(reg.stats(), {}, 'reset forgets the counters');
  t.equal(reg.get('task-1')?.polls, 3, 'but not the tasks');
  t.equal(reg.clear(), 2);
  t.equal(reg.get('task-1'), undefined);
  t.end();
});

void t.test('TaskRegistry forgets tasks after the retention, as the vendors do, and stays bounded', (t) => {
  const reg = new TaskRegistry(1_000, 3);
  const at = (id: string, submittedAt: number): SimTask => ({
    ...task(planTask({ taskMs: 0 }), submittedAt),
    id,
  });
  reg.submit(at('old', 0));
  reg.submit(at('a', 500));
  reg.submit(at('b', 1_200)); // `old` is past the 1 s retention now
  t.equal(reg.get('old'), undefined, 'a task past retention is forgotten');
  t.ok(reg.get('a') && reg.get('b'));
  reg.submit(at('c', 1_300));
  reg.submit(at('d', 1_400)); // four would be over the cap of three
  t.strictSame(
    reg.list().map((v) => v.id),
    ['b', 'c', 'd'],
    'the oldest go first',
  );
  t.notOk(reg.beginPoll('videoa', 'a').task, 'a forgotten task answers as unknown');
  t.end();
});

void t.test('route table', (t) => {
  const table = routeTable({
    'GET /tasks/stats': 'stats',
    'GET /tasks/:id': 'one',
    'POST /tasks': 'create',
  });
  t.strictSame(matchRoute(table, 'GET', '/tasks/stats'), { handler: 'stats', params: {} }, 'exact wins');
  t.strictSame(
    matchRoute(table, 'GET', '/tasks/a%20b'),
    { handler: 'one', params: { id: 'a b' } },
    'decoded',
  );
  t.strictSame(
    matchRoute(table, 'GET', '/tasks/%E0'),
    { handler: 'one', params: { id: '%E0' } },
    'bad escapes stay',
  );
  t.equal(matchRoute(table, 'GET', '/tasks/'), undefined, 'a parameter is never empty');
  t.equal(matchRoute(table, 'GET', '/tasks/a/b'), undefined);
  t.equal(matchRoute(table, 'DELETE', '/tasks/a'), undefined);
  t.strictSame(matchRoute(table, 'POST', '/tasks'), { handler: 'create', params: {} });
  t.end();
});

void t.test('inlineFlags', (t) => {
  t.strictSame(inlineFlags('A cat --resolution 1080p --duration 10 --ratio 9:16 --seed 3'), {
    resolution: '1080p',
    duration: '10',
    ratio: '9:16',
  });
  t.strictSame(inlineFlags('--rs 480p --dur 4 --rt 1:1'), {
    resolution: '480p',
    duration: '4',
    ratio: '1:1',
  });
  t.strictSame(inlineFlags('a--rs 480p, --constructor x, --dur 4 --dur 6'), { duration: '6' }, 'last wins');
  t.end();
});

void t.test('vendor clock', (t) => {
  const ms = Date.UTC(2025, 6, 27, 13, 5, 15, 212);
  t.equal(beijingTime(ms), '2025-07-27 21:05:15.212');
  t.equal(beijingStamp(ms), '20250727210515');
  t.end();
});
