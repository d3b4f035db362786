/**
 * A task protocol defined here, in the test file, by `defineTaskProtocol` alone: enabled by name under
 * `video.protocols`, it is served over real HTTP with its own routes, id format, header rule and status
 * words, against the bundled simulator, and its tasks are billed once like any other.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { Errors } from '../../../core/base/errors';
import { definedPluginsOf } from '../../../core/plugins/define-plugin';
import { defineTaskProtocol } from '../../../core/plugins/define-task-protocol';
import { isError } from '../../helpers/errors';
import { startTestGateway, type Teardown, type TestGateway } from '../../helpers/gateway';
import { getJson, postJson, type JsonResponse } from '../../helpers/http';
import { until } from '../../helpers/wait';
import { usageOf } from '../../plugins/chat-helpers';
import { videoBody, VIDEOB_MODEL } from '../../plugins/video-helpers';

const NAME = 'fixture-protocol';
const SUBMIT = '/fixture/v2/jobs';
const MODE = { 'x-fixture-mode': 'async' };

const FixtureProtocol = defineTaskProtocol(NAME, {
  defaultModels: ['videoa-1.1-*'],
  submitPath: SUBMIT,
  queryPath: `${SUBMIT}/:id`,
  words: { queued: 'WAITING', running: 'WORKING', succeeded: 'DONE', failed: 'BROKEN', cancelled: 'DROPPED' },
  checkSubmit(headers) {
    if (headers['x-fixture-mode'] !== 'async') {
      throw Errors.invalidRequest("header 'X-Fixture-Mode' must be 'async'");
    }
  },
  newTaskId: () => `fx_${randomUUID()}`,
  submitted(task, requestId) {
    return { job: { ref: task.id, state: this.words.queued }, trace: requestId };
  },
  queried(task, requestId) {
    return {
      job: {
        ref: task.id,
        state: this.words[task.status],
        model: task.model,
        ...(task.video_url ? { video: task.video_url } : {}),
      },
      trace: requestId,
    };
  },
});

// A type, not an interface: the error helpers take it as a Record.
type Job = {
  job: { ref: string; state: string; model?: string; video?: string };
  trace: string;
};

/** A gateway serving the fixture protocol (with `options`) beside `generic`. */
const gatewayWith = (t: Teardown, options: Record<string, unknown> = {}) =>
  startTestGateway(t, (doc) => {
    (doc.video as Record<string, unknown>).protocols = { generic: {}, [NAME]: options };
  });

const submit = (gw: TestGateway, body: unknown, headers: Record<string, string> = MODE) =>
  postJson<Job>(`${gw.url}${SUBMIT}`, body, gw.key, headers);

const query = (gw: TestGateway, id: string) => getJson<Job>(`${gw.url}${SUBMIT}/${id}`, gw.key);

const untilDone = (gw: TestGateway, id: string): Promise<JsonResponse<Job>> =>
  until(
    () => query(gw, id),
    (last) => ['DONE', 'BROKEN', 'DROPPED'].includes(last.body.job.state),
    { what: `task ${id} done` },
  );

t.test('defineTaskProtocol registers the protocol under its name', (t) => {
  t.equal(definedPluginsOf('task-protocol').get(NAME)?.cls, FixtureProtocol);
  t.end();
});

t.test('submit and query through the fixture protocol, billed once', async (t) => {
  const gw = await gatewayWith(t);

  const submitted = await submit(gw, videoBody('videoa-1.1-t2v', 'task_ms=300 queue_ms=100'));
  t.equal(submitted.status, 200, 'accepted');
  t.equal(submitted.headers.get('content-type'), 'application/json');
  const id = submitted.body.job.ref;
  t.match(id, /^fx_[0-9a-f-]{36}$/, 'the protocol’s own id format');
  t.strictSame(
    submitted.body,
    { job: { ref: id, state: 'WAITING' }, trace: submitted.headers.get('x-request-id') },
    'the submit answer in the protocol’s shape and words, with the request id',
  );
  const task = await gw.gateway.tasks.get(id);
  t.equal(task?.protocol, NAME, 'the task remembers the protocol it came in by');

  // In progress, asked of a task that runs for a minute: the short one may be done by the time a loaded
  // machine gets to ask.
  const long = await submit(gw, videoBody('videoa-1.1-t2v', 'task_ms=60000 queue_ms=100'));
  const first = await query(gw, long.body.job.ref);
  t.equal(first.status, 200);
  t.ok(['WAITING', 'WORKING'].includes(first.body.job.state), `in progress: ${first.body.job.state}`);
  t.equal(first.body.job.video, undefined, 'no video yet');

  const done = await untilDone(gw, id);
  t.match(done.body, {
    job: { ref: id, state: 'DONE', model: 'videoa-1.1-t2v', video: /\/_sim\/videos\/.+\.mp4$/ },
    trace: done.headers.get('x-request-id'),
  });

  const [record, ...more] = await usageOf(gw, id);
  t.equal(more.length, 0, 'one usage record');
  t.match(record, { id, model: 'videoa-1.1-t2v', endpoint: 'video', upstream: 'videoa-main', once: true });
  t.equal(record?.cost_micros, 500_000, '5 s at 0.10 per second of 720P');
  // Billed with its lease given back is the poller's last step on the task: a billed task is never
  // leased (so polled or billed) again, and queries only read the store. Nothing is on its way after it.
  await until(
    () => gw.gateway.tasks.get(id),
    (task) => task?.billed === true && task.lease === null,
    { what: 'the task billed and its lease given back' },
  );
  for (let i = 0; i < 5; i++) await query(gw, id);
  t.equal((await gw.gateway.usage.list({ id })).length, 1, 'still one record after more queries and polls');
  t.equal((await gw.gateway.tasks.get(id))?.billed, true);

  isError(t, await getJson(`${gw.url}/v1/videos/generations/${id}`, gw.key), 404, 'task_not_found', id);
});

t.test('the protocol’s own rules: its header, its default models', async (t) => {
  const gw = await gatewayWith(t);
  const before = gw.sim.tasks.list().length;
  isError(t, await submit(gw, videoBody('videoa-1.1-t2v'), {}), 400, 'invalid_request', 'X-Fixture-Mode');
  isError(t, await submit(gw, videoBody('videoa-1.0-t2v')), 404, 'model_not_found', 'videoa-1.0-t2v');
  isError(t, await submit(gw, videoBody(VIDEOB_MODEL)), 404, 'model_not_found', VIDEOB_MODEL);
  t.equal(gw.sim.tasks.list().length, before, 'nothing reached the upstream');
});

t.test('video.protocols options replace the default models', async (t) => {
  const gw = await gatewayWith(t, { models: ['videob-*'] });
  isError(t, await submit(gw, videoBody('videoa-1.1-t2v')), 404, 'model_not_found', 'videoa-1.1-t2v');
  const res = await submit(gw, videoBody(VIDEOB_MODEL, 'task_ms=100'));
  t.equal(res.status, 200);
  const done = await untilDone(gw, res.body.job.ref);
  t.match(done.body.job, { state: 'DONE', model: VIDEOB_MODEL, video: String });
  t.equal((await usageOf(gw, res.body.job.ref)).length, 1, 'billed once');
});
