/**
 * Video tasks end to end over real HTTP, for each protocol and each model it serves: submit, queries
 * while the task runs, completion with the video URL in the protocol's shape, and the one usage record.
 * Queries read the store only: the simulator counts the polls it receives, and they do not grow with queries.
 */
import t from 'tap';
import { startTestGateway } from '../../helpers/gateway';
import { eventually, until } from '../../helpers/wait';
import { usageOf } from '../chat-helpers';
import {
  PROTOCOL_NAMES,
  PROTOCOLS,
  queryVideo,
  submitVideo,
  untilFinished,
  videoBody,
  VIDEOB_MODEL,
} from '../video-helpers';

/**
 * Each task runs for 3 s: the first query, made as soon as its submit is answered, must find it still
 * running on a loaded machine too. The tasks are submitted together, so they run side by side.
 */
const RUNNING_FOR_A_WHILE = 'task_ms=3000 queue_ms=100';

void t.test('each protocol, each model: submit, progress, completion, billing', async (t) => {
  const gw = await startTestGateway(t);
  const cases = PROTOCOL_NAMES.flatMap((protocol) =>
    PROTOCOLS[protocol].models.map((model) => ({ protocol, model })),
  );
  const started = await Promise.all(
    cases.map(async ({ protocol, model }) => {
      const submitted = await submitVideo(gw, protocol, videoBody(model, RUNNING_FOR_A_WHILE));
      const id = PROTOCOLS[protocol].taskId(submitted.body);
      return { protocol, model, submitted, id, first: await queryVideo(gw, protocol, id) };
    }),
  );
  for (const { protocol, model, submitted, id, first } of started) {
    const view = PROTOCOLS[protocol];
    await t.test(`${protocol} ${model}`, async (t) => {
      t.equal(submitted.status, 200, 'accepted');
      t.equal(submitted.headers.get('content-type'), 'application/json');
      t.match(id, /^[A-Za-z0-9_-]{20,}$/, 'an unguessable task id');
      t.equal(gw.sim.tasks.get(id), undefined, "the gateway's own id, not the upstream's");

      t.equal(first.status, 200);
      t.notOk(Object.values(view.done).includes(view.status(first.body)), 'still in progress at first');
      t.equal(view.videoUrl(first.body), undefined, 'no video yet');

      const done = await untilFinished(gw, protocol, id);
      t.equal(view.status(done.body), view.done.succeeded);
      t.match(view.videoUrl(done.body), /\/_sim\/videos\/.+\.mp4$/, 'the video URL');

      const [record, ...more] = await usageOf(gw, id);
      t.equal(more.length, 0, 'one usage record');
      const videob = model === VIDEOB_MODEL;
      t.match(record, {
        id,
        model,
        endpoint: 'video',
        upstream: videob ? 'videob-main' : 'videoa-main',
        once: true,
        estimated: false,
      });
      if (videob) {
        t.equal(record!.completion_tokens, 108_000, 'upstream tokens: 5 s of 720p');
        t.equal(record!.cost_micros, 1_080_000, '108,000 tokens at 10 per million, in micro-units');
      } else {
        t.equal(record!.video_seconds, 5);
        t.equal(record!.resolution, '720P');
        t.equal(record!.cost_micros, 500_000, '5 s at 0.10 per second of 720P, in micro-units');
      }
    });
  }
});

void t.test('shapes and words of each protocol', async (t) => {
  const gw = await startTestGateway(t);

  await t.test('generic: a video.generation.job, queued, then completed with data[].url', async (t) => {
    const res = await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', 'task_ms=150'));
    t.strictSame(Object.keys(res.body).sort(), ['created_at', 'id', 'model', 'object', 'status']);
    t.match(res.body, { object: 'video.generation.job', status: 'queued', model: 'videoa-1.1-t2v' });
    const done = await untilFinished(gw, 'generic', String(res.body.id));
    t.match(done.body, { id: res.body.id, status: 'completed', data: [{ url: String }] });
  });

  await t.test(
    'native-a: output.task_id with PENDING and a request_id; SUCCEEDED with video_url',
    async (t) => {
      const res = await submitVideo(gw, 'native-a', videoBody('videoa-1.0-r2v', 'task_ms=150'));
      t.match(res.body, { output: { task_status: 'PENDING' }, request_id: res.headers.get('x-request-id') });
      t.strictSame(Object.keys(res.body.output as object).sort(), ['task_id', 'task_status']);
      const id = PROTOCOLS['native-a'].taskId(res.body);
      const done = await untilFinished(gw, 'native-a', id);
      t.match(done.body, {
        output: { task_id: id, task_status: 'SUCCEEDED', video_url: String, submit_time: String },
        usage: { video_duration: 5, video_count: 1 },
      });
    },
  );

  await t.test(
    'native-b: {id, status: submitted}; succeeded with content.video_url and token usage',
    async (t) => {
      const res = await submitVideo(gw, 'native-b', videoBody(VIDEOB_MODEL, 'task_ms=150'));
      t.strictSame(Object.keys(res.body).sort(), ['id', 'status']);
      t.equal(res.body.status, 'submitted');
      t.match(res.body.id, /^cgt-\d{14}-[0-9a-f]{30}$/);
      const done = await untilFinished(gw, 'native-b', String(res.body.id));
      t.match(done.body, {
        status: 'succeeded',
        content: { video_url: String },
        usage: { completion_tokens: 108_000, total_tokens: 108_000 },
        error: null,
      });
    },
  );
});

void t.test(
  'queries never reach the upstream; a task finishes and is billed with nobody asking',
  async (t) => {
    const gw = await startTestGateway(t);
    const res = await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', 'task_ms=400'));
    const id = String(res.body.id);
    const task = await gw.gateway.tasks.get(id);
    const upstreamId = task!.upstream_task_id!;
    const before = gw.sim.tasks.get(upstreamId)!.polls;
    for (let i = 0; i < 25; i++) await queryVideo(gw, 'generic', id);
    const after = gw.sim.tasks.get(upstreamId)!.polls;
    t.ok(after - before < 25, `25 queries, ${after - before} polls meanwhile (the poller's own)`);

    const unasked = await submitVideo(gw, 'native-b', videoBody(VIDEOB_MODEL, 'task_ms=200'));
    const unaskedId = String(unasked.body.id);
    const records = await usageOf(gw, unaskedId);
    t.equal(records.length, 1, 'billed without a single query');
    t.equal((await gw.gateway.tasks.get(unaskedId))?.status, 'succeeded');
  },
);

void t.test('with the poller off, queries alone never poll the upstream', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    (doc.video as Record<string, unknown>).poller = false;
  });
  const res = await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', 'task_ms=50'));
  const id = String(res.body.id);
  const upstreamId = (await gw.gateway.tasks.get(id))!.upstream_task_id!;
  // Done upstream first (the simulator's view of a task is not a poll): a poll now would say so.
  await until(
    () => gw.sim.tasks.get(upstreamId)?.status,
    (status) => status === 'succeeded',
    { what: 'the upstream task done' },
  );
  for (let i = 0; i < 10; i++) {
    const q = await queryVideo(gw, 'generic', id);
    t.equal(q.body.status, 'queued', 'the store says queued: nobody polled');
  }
  t.equal(gw.sim.tasks.get(upstreamId)?.polls, 0, 'the upstream was never asked');
});

void t.test('operators read the poller figures from the admin API', async (t) => {
  const gw = await startTestGateway(t);
  const res = await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', 'task_ms=100 poll_errors=1'));
  await untilFinished(gw, 'generic', String(res.body.id));
  await eventually(async () => (await gw.gateway.usage.list({ id: String(res.body.id) })).length === 1);
  const stats = await fetch(`${gw.gateway.adminUrl}/admin/video/stats`, {
    headers: { authorization: `Bearer ${gw.gateway.adminToken}` },
  });
  t.equal(stats.status, 200);
  const body = (await stats.json()) as Record<string, unknown>;
  t.match(body, {
    tasks: { succeeded: 1, queued: 0, running: 0, failed: 0, cancelled: 0 },
    polls: Number,
    billed: 1,
    upstream_errors: { 'videoa-main': 1 },
    poll_lag_ms: { last: Number, max: Number },
  });
});
