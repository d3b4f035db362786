import type { Clock } from '@sinonjs/fake-timers';
import { request } from 'node:http';
import t, { type Test } from 'tap';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import type { PollStats } from '../../simulator/tasks/poll-meter';
import type { TaskView } from '../../simulator/tasks/registry';
import { manualClock } from '../helpers/clock';

/** How a client reaches each video family. */
const VIDEO = {
  videoa: {
    submit: '/videoa/api/v1/services/aigc/video-generation/video-synthesis',
    poll: '/videoa/api/v1/tasks/',
    key: 'sim-videoa-key',
  },
  videob: {
    submit: '/videob/api/v3/contents/generations/tasks',
    poll: '/videob/api/v3/contents/generations/tasks/',
    key: 'sim-videob-key',
  },
} as const;
type VideoFamily = keyof typeof VIDEO;

/** A videoa poll answer (and submit answer, which has only the first two output fields). */
interface TaskA {
  request_id: string;
  output: {
    task_id: string;
    task_status: string;
    submit_time?: string;
    scheduled_time?: string;
    end_time?: string;
    video_url?: string;
    code?: string;
    message?: string;
  };
  usage?: { video_duration: number; video_count: number; SR: number };
}

/** A videob poll answer. */
interface TaskB {
  id: string;
  model: string;
  status: string;
  content?: { video_url: string };
  usage?: { completion_tokens: number; total_tokens: number };
  error: { code: string; message: string } | null;
  created_at: number;
  updated_at: number;
  resolution: string;
  ratio: string;
  duration: number;
}

/** A response read whole. */
interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}

let sim: RunningSimulator;
t.before(async () => {
  sim = await startSimulator();
});
t.teardown(() => sim.close());

const bodyA = (prompt: string, parameters: unknown = { resolution: '720P', duration: 5 }): object => ({
  model: 'videoa-1.1-t2v',
  input: { prompt },
  parameters,
});
const bodyB = (text: string, extra: object = {}): object => ({
  model: 'videob-2-0-260128',
  content: [{ type: 'text', text }],
  ...extra,
});

async function answer<T>(res: Response): Promise<Answer<T>> {
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}

/** POSTs a submit with the family's key (and videoa's async header); override either by header. */
async function submit<T>(
  family: VideoFamily,
  body: unknown,
  headers: Record<string, string> = {},
  on: RunningSimulator = sim,
): Promise<Answer<T>> {
  const asyncHeader: Record<string, string> = family === 'videoa' ? { 'x-nativea-async': 'enable' } : {};
  const res = await fetch(on.url + VIDEO[family].submit, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${VIDEO[family].key}`,
      'content-type': 'application/json',
      ...asyncHeader,
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return answer<T>(res);
}

/** GETs a task with the family's key. */
async function poll<T>(
  family: VideoFamily,
  id: string,
  headers: Record<string, string> = {},
  on: RunningSimulator = sim,
): Promise<Answer<T>> {
  const res = await fetch(on.url + VIDEO[family].poll + encodeURIComponent(id), {
    headers: { authorization: `Bearer ${VIDEO[family].key}`, ...headers },
  });
  return answer<T>(res);
}

/** Submits on videoa and returns the task id. */
async function taskA(
  t: Test,
  prompt: string,
  headers?: Record<string, string>,
  on: RunningSimulator = sim,
): Promise<string> {
  const res = await submit<TaskA>('videoa', bodyA(prompt), headers, on);
  t.equal(res.status, 200, prompt);
  return res.body.output.task_id;
}

/** Submits on videob and returns the task id. */
async function taskB(
  t: Test,
  text: string,
  headers?: Record<string, string>,
  extra?: object,
  on: RunningSimulator = sim,
): Promise<string> {
  const res = await submit<{ id: string }>('videob', bodyB(text, extra), headers, on);
  t.equal(res.status, 200, text);
  return res.body.id;
}

/** A simulator whose video tasks run on a fake clock, for tests whose subject is a task's time. */
async function timedSimulator(t: Test): Promise<{ timed: RunningSimulator; clock: Clock }> {
  const clock = manualClock();
  const timed = await startSimulator({ clock: clock.read });
  t.teardown(() => timed.close());
  return { timed, clock };
}

/**
 * Polls a task on `timed` once after each step of the fake clock (ms, the first from the submit);
 * returns each status seen (runs collapsed), the last body and how many polls it took.
 */
async function pollThrough<T>(
  family: VideoFamily,
  id: string,
  statusOf: (body: T) => string,
  { timed, clock }: { timed: RunningSimulator; clock: Clock },
  steps: readonly number[],
): Promise<{ seen: string[]; last: T; polls: number }> {
  const seen: string[] = [];
  let last: T | undefined;
  for (const ms of steps) {
    clock.tick(ms);
    last = (await poll<T>(family, id, {}, timed)).body;
    const status = statusOf(last);
    if (seen.at(-1) !== status) seen.push(status);
  }
  return { seen, last: last!, polls: steps.length };
}

/** Each phase's last and first millisecond of a task queued 80 ms of 240: 0, 79, 80, 239, 240. */
const PHASE_EDGES = [0, 79, 1, 159, 1];

const statusA = (b: TaskA): string => b.output.task_status;
const statusB = (b: TaskB): string => b.status;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const VENDOR_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/;
const A_ERROR = { request_id: /^req_/, code: String, message: String };

void t.test('videoa submit', async (t) => {
  const res = await submit<TaskA>('videoa', bodyA('a cat on a wall'));
  t.equal(res.status, 200);
  t.match(res.body.output.task_id, UUID);
  t.strictSame(res.body, {
    output: { task_id: res.body.output.task_id, task_status: 'PENDING' },
    request_id: res.headers.get('x-request-id'),
  });
  t.match(res.body.request_id, /^req_/);
  const defaults = await submit<TaskA>('videoa', { model: 'videoa-1.1-t2v', input: { prompt: 'hi' } });
  t.equal(defaults.status, 200, 'parameters may be left out');
  t.match(sim.tasks.get(defaults.body.output.task_id), { resolution: '720P', duration: 5, ratio: null });
});

void t.test('videoa refuses invalid bodies with InvalidParameter naming the field', async (t) => {
  const cases: [unknown, string][] = [
    [[1, 2], 'body'],
    [{ input: { prompt: 'x' } }, 'model'],
    [{ model: 7, input: { prompt: 'x' } }, 'model'],
    [{ model: 'm' }, 'input'],
    [{ model: 'm', input: 'x' }, 'input'],
    [{ model: 'm', input: {} }, 'input.prompt'],
    [{ model: 'm', input: { prompt: '  ' } }, 'input.prompt'],
    [bodyA('x', 'fast'), 'parameters'],
    [bodyA('x', { resolution: '4K' }), 'parameters.resolution'],
    [bodyA('x', { resolution: '720p' }), 'parameters.resolution'],
    [bodyA('x', { duration: 5.5 }), 'parameters.duration'],
    [bodyA('x', { duration: 16 }), 'parameters.duration'],
    [bodyA('x', { duration: '5' }), 'parameters.duration'],
  ];
  for (const [body, field] of cases) {
    const res = await submit<{ code: string; message: string }>('videoa', body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.match(res.body, { ...A_ERROR, code: 'InvalidParameter' });
    t.ok(res.body.message.startsWith(`${field}: `), `${res.body.message} names ${field}`);
  }
});

void t.test('videoa refuses a submit without the async header', async (t) => {
  for (const headers of [{ 'x-nativea-async': 'disable' }, { 'x-nativea-async': '' }]) {
    const res = await submit<{ message: string }>('videoa', bodyA('x'), headers);
    t.equal(res.status, 403);
    t.match(res.body, { ...A_ERROR, code: 'AccessDenied', message: /synchronous calls/ });
  }
  const plain = await fetch(sim.url + VIDEO.videoa.submit, {
    method: 'POST',
    headers: { authorization: `Bearer ${VIDEO.videoa.key}` },
    body: JSON.stringify(bodyA('x')),
  });
  t.equal(plain.status, 403, 'no header at all');
});

void t.test('both families check the key on submit and poll', async (t) => {
  const wrong = { authorization: 'Bearer nope' };
  const a = await submit('videoa', bodyA('x'), wrong);
  t.equal(a.status, 401);
  t.match(a.body, { ...A_ERROR, code: 'InvalidApiKey' });
  t.match((await poll('videoa', 'some-id', wrong)).body, { code: 'InvalidApiKey' });
  const b = await submit('videob', bodyB('x'), wrong);
  t.equal(b.status, 401);
  t.match(b.body, {
    error: { code: 'AuthenticationError', type: 'Unauthorized', message: /Request id: req_/ },
  });
  t.equal((await poll('videob', 'cgt-1', wrong)).status, 401);
  t.equal(sim.tasks.get('some-id'), undefined, 'refused polls are not counted');
});

void t.test('videoa: PENDING, RUNNING, then SUCCEEDED with the video and usage', async (t) => {
  const on = await timedSimulator(t);
  const id = await taskA(t, 'a cat #sim task_ms=240 queue_ms=80', {}, on.timed);
  const { seen, last, polls } = await pollThrough<TaskA>('videoa', id, statusA, on, PHASE_EDGES);
  t.strictSame(seen, ['PENDING', 'RUNNING', 'SUCCEEDED']);
  t.match(last.output, {
    task_id: id,
    submit_time: VENDOR_TIME,
    scheduled_time: VENDOR_TIME,
    end_time: VENDOR_TIME,
    video_url: `${on.timed.url}/_sim/videos/${id}.mp4`,
  });
  t.strictSame(last.usage, { video_duration: 5, video_count: 1, SR: 720 });
  t.notOk('code' in last.output, 'no failure fields');
  t.equal(on.timed.tasks.get(id)?.polls, polls, 'every poll is counted');
});

void t.test('videoa: the first poll sees only submit_time', async (t) => {
  const id = await taskA(t, 'slow #sim task_ms=60000');
  const { body } = await poll<TaskA>('videoa', id);
  t.strictSame(Object.keys(body.output), ['task_id', 'task_status', 'submit_time']);
  t.notOk(body.usage);
  const big = await submit<TaskA>('videoa', bodyA('#sim task_ms=0', { resolution: '1080P', duration: 10 }));
  const done = await poll<TaskA>('videoa', big.body.output.task_id);
  t.strictSame(done.body.usage, { video_duration: 10, video_count: 1, SR: 1080 });
});

void t.test('videob submit', async (t) => {
  const res = await submit<{ id: string }>('videob', bodyB('a dog on a beach'));
  t.equal(res.status, 200);
  t.match(res.body.id, /^cgt-\d{14}-[a-z0-9]{5}$/);
  t.strictSame(Object.keys(res.body), ['id'], 'the whole body is the id');
  t.match(res.headers.get('x-request-id'), /^req_/);
});

void t.test('videob refuses invalid bodies naming the parameter', async (t) => {
  const image = { type: 'image_url', image_url: { url: 'https://example.com/a.png' } };
  const cases: [unknown, string, string][] = [
    ['"text"', 'InvalidParameter', 'body'],
    [{ content: [{ type: 'text', text: 'x' }] }, 'MissingParameter', 'model'],
    [{ model: '', content: [{ type: 'text', text: 'x' }] }, 'InvalidParameter', 'model'],
    [{ model: 'm' }, 'MissingParameter', 'content'],
    [{ model: 'm', content: 'x' }, 'InvalidParameter', 'content'],
    [{ model: 'm', content: [] }, 'InvalidParameter', 'content'],
    [{ model: 'm', content: [image] }, 'InvalidParameter', 'content'],
    [{ model: 'm', content: [5] }, 'InvalidParameter', 'content[0]'],
    [{ model: 'm', content: [image, { type: 'text' }] }, 'MissingParameter', 'content[1].text'],
    [{ model: 'm', content: [{ type: 'text', text: '' }] }, 'InvalidParameter', 'content[0].text'],
    [bodyB('x --duration ten'), 'InvalidParameter', 'content[0].text'],
    [bodyB('x --rs 4k'), 'InvalidParameter', 'content[0].text'],
    [bodyB('x', { ratio: 'wide' }), 'InvalidParameter', 'ratio'],
    [bodyB('x', { duration: 16 }), 'InvalidParameter', 'duration'],
    [bodyB('x', { resolution: 720 }), 'InvalidParameter', 'resolution'],
  ];
  for (const [body, code, param] of cases) {
    const res = await submit<{ error: { message: string } }>('videob', body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.match(res.body, { error: { code, param, type: 'BadRequest', message: /Request id: req_/ } });
    t.ok(res.body.error.message.includes(`\`${param}\``), `${res.body.error.message} names ${param}`);
  }
});

void t.test('videob: queued, running, then succeeded with the video and usage', async (t) => {
  const on = await timedSimulator(t);
  const controls = { 'x-sim-task-ms': '240', 'x-sim-queue-ms': '80' };
  const id = await taskB(t, 'a dog', controls, undefined, on.timed);
  const { seen, last } = await pollThrough<TaskB>('videob', id, statusB, on, PHASE_EDGES);
  t.strictSame(seen, ['queued', 'running', 'succeeded']);
  t.match(last, {
    id,
    model: 'videob-2-0-260128',
    content: { video_url: `${on.timed.url}/_sim/videos/${id}.mp4` },
    error: null,
    resolution: '720p',
    ratio: '16:9',
    duration: 5,
  });
  // 5 s × 24 frames × 900 tokens a 720p frame.
  t.strictSame(last.usage, { completion_tokens: 108000, total_tokens: 108000 });
  t.ok(Math.abs(last.created_at - on.clock.now / 1000) < 60, 'created_at is unix seconds');
  t.ok(last.updated_at >= last.created_at);
});

void t.test('videob: inline flags, short forms, and top-level fields that win', async (t) => {
  const flagged = await taskB(t, 'a dog --rs 1080p --dur 10 --rt 9:16 #sim task_ms=0');
  const a = (await poll<TaskB>('videob', flagged)).body;
  t.match(a, { resolution: '1080p', duration: 10, ratio: '9:16' });
  t.strictSame(a.usage, { completion_tokens: 10 * 24 * 2025, total_tokens: 10 * 24 * 2025 });
  const long = await taskB(t, 'a dog --resolution 480P --duration 4 --ratio adaptive\n#sim task_ms=0');
  t.match((await poll<TaskB>('videob', long)).body, { resolution: '480p', duration: 4, ratio: 'adaptive' });
  const top = await taskB(
    t,
    'a dog --resolution 1080p --duration 10 #sim task_ms=0',
    {},
    {
      resolution: '480p',
      duration: 3,
      ratio: '1:1',
    },
  );
  t.match((await poll<TaskB>('videob', top)).body, { resolution: '480p', duration: 3, ratio: '1:1' });
  const second = await submit<{ id: string }>('videob', {
    model: 'm',
    content: [
      { type: 'image_url', image_url: { url: 'https://example.com/a.png' }, role: 'first_frame' },
      { type: 'text', text: 'first --dur 2 #sim task_ms=0' },
      { type: 'text', text: 'second --dur 9 #sim fail' },
    ],
  });
  t.match(
    (await poll<TaskB>('videob', second.body.id)).body,
    { status: 'succeeded', duration: 2 },
    'the first text item counts',
  );
});

void t.test('fail: each vendor reports the failure its own way', async (t) => {
  const a = await taskA(t, 'x #sim task_ms=0 fail');
  const bodyOfA = (await poll<TaskA>('videoa', a)).body;
  t.match(bodyOfA.output, {
    task_status: 'FAILED',
    code: 'InternalError.Algo',
    message: String,
    end_time: VENDOR_TIME,
  });
  t.notOk(bodyOfA.output.video_url);
  t.notOk(bodyOfA.usage);
  const b = await taskB(t, 'x', { 'x-sim-task-ms': '0', 'x-sim-fail': '1' });
  const bodyOfB = (await poll<TaskB>('videob', b)).body;
  t.match(bodyOfB, { status: 'failed', error: { code: 'InternalServiceError', message: String } });
  t.notOk(bodyOfB.content);
  t.notOk(bodyOfB.usage);
});

void t.test('cancel: CANCELED and cancelled, winning over fail', async (t) => {
  const a = await taskA(t, 'x #sim task_ms=0 cancel fail');
  const bodyOfA = (await poll<TaskA>('videoa', a)).body;
  t.match(bodyOfA.output, { task_status: 'CANCELED', end_time: VENDOR_TIME });
  t.notOk(bodyOfA.output.code);
  t.notOk(bodyOfA.output.video_url);
  const b = await taskB(t, 'x #sim task_ms=0 cancel');
  const bodyOfB = (await poll<TaskB>('videob', b)).body;
  t.match(bodyOfB, { status: 'cancelled', error: null });
  t.notOk(bodyOfB.content);
  t.equal(sim.tasks.get(b)?.status, 'cancelled');
});

void t.test('poll_errors: the first N polls answer 500 in the vendor shape, then the task', async (t) => {
  const a = await taskA(t, 'x #sim task_ms=0 poll_errors=2');
  for (let i = 0; i < 2; i++) {
    const res = await poll('videoa', a);
    t.equal(res.status, 500);
    t.match(res.body, { ...A_ERROR, code: 'InternalError', message: /simulated poll error/ });
  }
  t.match((await poll<TaskA>('videoa', a)).body.output, { task_status: 'SUCCEEDED' });
  const b = await taskB(t, 'x', { 'x-sim-task-ms': '0', 'x-sim-poll-errors': '1' });
  const failed = await poll('videob', b);
  t.equal(failed.status, 500);
  t.match(failed.body, { error: { code: 'InternalServiceError', type: 'InternalServerError' } });
  t.equal((await poll('videob', b)).status, 200);
  t.equal(sim.tasks.get(a)?.polls, 3, 'failed polls are counted');
});

void t.test('unknown_polls (videoa): UNKNOWN for the first N polls, after any poll errors', async (t) => {
  const a = await taskA(t, 'x #sim task_ms=0 unknown_polls=2');
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push(statusA((await poll<TaskA>('videoa', a)).body));
  t.strictSame(statuses, ['UNKNOWN', 'UNKNOWN', 'SUCCEEDED']);
  const both = await taskA(t, 'x #sim task_ms=0 poll_errors=1 unknown_polls=1');
  const answers = [];
  for (let i = 0; i < 3; i++) {
    const res = await poll<TaskA>('videoa', both);
    answers.push(res.status === 200 ? statusA(res.body) : res.status);
  }
  t.strictSame(answers, [500, 'UNKNOWN', 'SUCCEEDED']);
  const b = await taskB(t, 'x #sim task_ms=0 unknown_polls=3');
  t.match((await poll<TaskB>('videob', b)).body, { status: 'succeeded' }, 'videob has no such answer');
});

void t.test('unknown ids: videoa says UNKNOWN with 200, videob 404; both are counted', async (t) => {
  for (let i = 0; i < 2; i++) {
    const res = await poll<TaskA>('videoa', 'no-such-task');
    t.equal(res.status, 200);
    t.strictSame(res.body, {
      request_id: res.headers.get('x-request-id'),
      output: { task_id: 'no-such-task', task_status: 'UNKNOWN' },
    });
  }
  t.match(sim.tasks.get('no-such-task'), { family: 'videoa', status: 'unknown', polls: 2 });
  const b = await poll('videob', 'cgt-20250101000000-zzzzz');
  t.equal(b.status, 404);
  t.match(b.body, { error: { code: 'ResourceNotFound', type: 'NotFound', message: /Request id: req_/ } });
  t.notOk('param' in (b.body as { error: object }).error);
  t.match(sim.tasks.get('cgt-20250101000000-zzzzz'), { family: 'videob', status: 'unknown', polls: 1 });
  const a = await taskA(t, 'x #sim task_ms=0');
  t.equal((await poll('videob', a)).status, 404, "one family never sees the other's tasks");
});

void t.test('/_sim/tasks lists tasks and unknown ids with their poll counts', async (t) => {
  const id = await taskA(t, 'listed #sim task_ms=50 fail poll_errors=1 poll_latency_ms=1');
  await poll('videoa', id);
  await poll('videoa', id);
  const one = await fetch(`${sim.url}/_sim/tasks/${id}`);
  t.equal(one.status, 200);
  t.match(await one.json(), {
    family: 'videoa',
    id,
    polls: 2,
    max_concurrent_polls: 1,
    created_at: String,
    last_polled_at: String,
    model: 'videoa-1.1-t2v',
    outcome: 'failed',
    task_ms: 50,
    queue_ms: 12,
    poll_errors: 1,
    unknown_polls: 0,
    poll_latency_ms: 1,
    video_url: `${sim.url}/_sim/videos/${id}.mp4`,
  });
  t.equal(sim.tasks.get(id)?.polls, 2, 'the same count in process');
  const all = (await (await fetch(`${sim.url}/_sim/tasks`)).json()) as TaskView[];
  t.ok(Array.isArray(all));
  t.ok(all.some((v) => v.id === id));
  t.ok(all.some((v) => v.id === 'no-such-task' && v.status === 'unknown'));
  const onlyB = (await (await fetch(`${sim.url}/_sim/tasks?family=videob`)).json()) as TaskView[];
  t.ok(onlyB.length > 0 && onlyB.every((v) => v.family === 'videob'));
  const never = await fetch(`${sim.url}/_sim/tasks/never-seen`);
  t.equal(never.status, 404);
  t.match(await never.json(), { status: 404 });
});

void t.test('/_sim/videos serves a succeeded task only', async (t) => {
  const done = await taskA(t, 'x #sim task_ms=0');
  const res = await fetch(`${sim.url}/_sim/videos/${done}.mp4`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'video/mp4');
  const bytes = Buffer.from(await res.arrayBuffer());
  t.ok(bytes.length > 0);
  t.equal(bytes.toString('latin1', 4, 8), 'ftyp');
  const running = await taskB(t, 'x #sim task_ms=60000');
  const failed = await taskB(t, 'x #sim task_ms=0 fail');
  for (const path of [`${running}.mp4`, `${failed}.mp4`, 'no-such-task.mp4', done]) {
    t.equal((await fetch(`${sim.url}/_sim/videos/${path}`)).status, 404, path);
  }
});

void t.test('the video URL follows the Host header the client used', async (t) => {
  const id = await new Promise<string>((resolve, reject) => {
    const req = request(sim.url + VIDEO.videob.submit, {
      method: 'POST',
      headers: { authorization: `Bearer ${VIDEO.videob.key}`, host: 'videos.example:8443' },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve((JSON.parse(text) as { id: string }).id));
    });
    req.on('error', reject);
    req.end(JSON.stringify(bodyB('x #sim task_ms=0')));
  });
  t.equal(sim.tasks.get(id)?.video_url, `http://videos.example:8443/_sim/videos/${id}.mp4`);
});

void t.test('submit controls: directives, headers winning, latency and status', async (t) => {
  const id = await taskA(t, 'x #sim task_ms=60000', { 'x-sim-task-ms': '0' });
  t.equal(statusA((await poll<TaskA>('videoa', id)).body), 'SUCCEEDED', 'the header wins');
  const started = Date.now();
  await taskB(t, 'x #sim latency_ms=80');
  t.ok(Date.now() - started >= 75, 'latency_ms delays the submit');
  const before = sim.tasks.statsOf('videoa').submitted;
  const a = await submit('videoa', bodyA('x'), { 'x-sim-status': '429' });
  t.equal(a.status, 429);
  t.equal(a.headers.get('retry-after'), '1');
  t.match(a.body, { ...A_ERROR, code: 'Throttling' });
  t.equal(sim.tasks.statsOf('videoa').submitted, before, 'a refused submit creates no task');
  const b = await submit('videob', bodyB('x #sim status=503'));
  t.equal(b.status, 503);
  t.match(b.body, { error: { code: 'ServerOverloaded', type: 'ServiceUnavailable' } });
  const bad = await submit('videob', bodyB('x #sim task_ms=soon'));
  t.equal(bad.status, 400);
  t.match(bad.body, { error: { code: 'invalid_sim_control', type: 'BadRequest' } });
});

void t.test('stats: concurrency and rate high-water marks per family', async (t) => {
  // Polls timed by a clock that stands still: all seven arrive within one second, however long a
  // loaded machine takes to send them. Their latency, and so their overlap, is real.
  const { timed: own } = await timedSimulator(t);
  const stats = async (query = ''): Promise<unknown> =>
    (await fetch(`${own.url}/_sim/tasks/stats${query}`)).json();
  t.strictSame(await stats(), {}, 'no traffic, no families');

  const slow = (await submit<TaskA>('videoa', bodyA('x #sim task_ms=0 poll_latency_ms=100'), {}, own)).body;
  const id = slow.output.task_id;
  const four = await Promise.all([1, 2, 3, 4].map(() => poll<TaskA>('videoa', id, {}, own)));
  t.ok(four.every((r) => statusA(r.body) === 'SUCCEEDED'));
  const fast = (await submit<TaskA>('videoa', bodyA('x #sim task_ms=0'), {}, own)).body.output.task_id;
  for (let i = 0; i < 3; i++) await poll('videoa', fast, {}, own);

  const expected: PollStats = {
    submitted: 2,
    polls: 7,
    in_flight: 0,
    max_concurrent_polls: 4,
    max_polls_per_second: 7,
  };
  t.strictSame(own.tasks.statsOf('videoa'), expected);
  t.strictSame(await stats(), { videoa: expected }, 'the same over HTTP');
  t.strictSame(await stats('?family=videoa'), expected);
  t.match(await stats('?family=videob'), { polls: 0, max_polls_per_second: 0 }, 'zeros for a quiet family');
  t.equal(own.tasks.get(id)?.max_concurrent_polls, 4, 'per task too');
  t.equal(own.tasks.get(fast)?.max_concurrent_polls, 1);

  const reset = await fetch(`${own.url}/_sim/tasks/stats`, { method: 'DELETE' });
  t.strictSame(await reset.json(), { ok: true });
  t.strictSame(await stats(), {}, 'the marks start afresh');
  t.equal(own.tasks.get(id)?.polls, 4, 'task poll counts stay');

  const cleared = await fetch(`${own.url}/_sim/tasks`, { method: 'DELETE' });
  t.strictSame(await cleared.json(), { ok: true, cleared: 2 });
  t.strictSame(own.tasks.list(), []);
  t.equal(statusA((await poll<TaskA>('videoa', id, {}, own)).body), 'UNKNOWN', 'a forgotten task is unknown');
});
