/**
 * What goes wrong with video tasks, and what the client sees: upstream failures and cancellations (in each
 * protocol's shape, never billed), a deadline, transient poll errors and "unknown" answers (not failures),
 * bad bodies, the missing async header, another key's task, idempotent resubmission, a refused submit.
 */
import t, { type Test } from 'tap';
import { isError } from '../../helpers/errors';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';
import { usageOf } from '../chat-helpers';
import {
  PROTOCOL_NAMES,
  PROTOCOLS,
  queryVideo,
  submitVideo,
  untilFinished,
  videoBody,
  VIDEOB_MODEL,
  type ProtocolName,
} from '../video-helpers';

/** A model each protocol serves. */
const MODEL_OF: Readonly<Record<ProtocolName, string>> = {
  generic: 'videoa-1.1-t2v',
  'native-a': 'videoa-1.0-t2v',
  'native-b': VIDEOB_MODEL,
};

async function finishedTask(gw: TestGateway, protocol: ProtocolName, directives: string) {
  const res = await submitVideo(gw, protocol, videoBody(MODEL_OF[protocol], directives));
  const id = PROTOCOLS[protocol].taskId(res.body);
  return { id, done: await untilFinished(gw, protocol, id) };
}

/** No usage record for `id`, once the poller had every chance to write one. */
async function notBilled(t: Test, gw: TestGateway, id: string): Promise<void> {
  const task = await gw.gateway.tasks.get(id);
  t.equal(task?.billed, false, 'the task is not billed');
  t.strictSame(await gw.gateway.usage.list({ id }), [], 'no usage record');
}

void t.test('video task failures', async (t) => {
  const gw = await startTestGateway(t);

  await t.test('an upstream failure: the error in each protocol’s shape, never billed', async (t) => {
    const expected: Record<ProtocolName, object> = {
      generic: { status: 'failed', data: [], error: { code: 'InternalError.Algo', message: String } },
      'native-a': { output: { task_status: 'FAILED', code: 'InternalError.Algo', message: String } },
      'native-b': { status: 'failed', error: { code: 'InternalServiceError', message: String } },
    };
    for (const protocol of PROTOCOL_NAMES) {
      const { id, done } = await finishedTask(gw, protocol, 'task_ms=100 fail');
      t.match(done.body, expected[protocol], protocol);
      t.equal(PROTOCOLS[protocol].videoUrl(done.body), undefined, 'no video URL');
      await notBilled(t, gw, id);
    }
  });

  await t.test('a cancelled task is cancelled in each protocol’s word, never billed', async (t) => {
    for (const protocol of PROTOCOL_NAMES) {
      const { id, done } = await finishedTask(gw, protocol, 'task_ms=100 cancel');
      t.equal(PROTOCOLS[protocol].status(done.body), PROTOCOLS[protocol].done.cancelled, protocol);
      await notBilled(t, gw, id);
    }
  });

  await t.test('transient poll errors and "unknown" answers are retried, not failures', async (t) => {
    const errors = await finishedTask(gw, 'generic', 'task_ms=100 poll_errors=3');
    t.equal(errors.done.body.status, 'completed', 'three 500s on polls, then success');
    t.equal((await usageOf(gw, errors.id)).length, 1);
    const unknown = await finishedTask(gw, 'native-a', 'task_ms=100 unknown_polls=3');
    t.equal(PROTOCOLS['native-a'].status(unknown.done.body), 'SUCCEEDED', 'three UNKNOWNs, then success');
    t.equal((await gw.gateway.tasks.get(unknown.id))!.polls >= 4, true, 'the UNKNOWN answers were polls too');
  });

  await t.test('bad bodies → 400 naming the field; nothing reaches the upstream', async (t) => {
    const videoa = videoBody('videoa-1.1-t2v') as { input: object; parameters: object };
    const cases: [ProtocolName, unknown, string][] = [
      ['generic', { ...videoa, input: undefined }, "'input'"],
      ['generic', { ...videoa, input: { prompt: '' } }, "'input.prompt'"],
      ['native-a', { ...videoa, parameters: undefined }, "'parameters'"],
      ['native-a', { ...videoa, parameters: { duration: 5 } }, "'parameters.resolution'"],
      ['native-a', { ...videoa, parameters: { resolution: '720P', duration: 2.5 } }, "'parameters.duration'"],
      ['native-a', { ...videoa, parameters: { resolution: '720P', duration: '5' } }, "'parameters.duration'"],
      ['native-b', { model: VIDEOB_MODEL }, "'content'"],
      [
        'native-b',
        { model: VIDEOB_MODEL, content: [{ type: 'image_url', image_url: { url: 'x' } }] },
        "'content'",
      ],
      ['generic', { model: VIDEOB_MODEL, content: [{ type: 'text', text: ' ' }] }, "'content'"],
      ['generic', { input: { prompt: 'x' } }, "'model'"],
    ];
    const before = gw.sim.tasks.list().length;
    for (const [protocol, body, field] of cases) {
      isError(t, await submitVideo(gw, protocol, body), 400, 'invalid_request', field);
    }
    t.equal(gw.sim.tasks.list().length, before, 'no upstream task was created');
  });

  await t.test(
    'native-a without X-nativea-Async: enable → 400, synchronous calls are not supported',
    async (t) => {
      const body = videoBody('videoa-1.1-t2v');
      const url = `${gw.url}${PROTOCOLS['native-a'].submitPath}`;
      const variants: Record<string, string>[] = [{}, { 'x-nativea-async': 'disable' }];
      for (const headers of variants) {
        isError(
          t,
          await postJson(url, body, gw.key, headers),
          400,
          'invalid_request',
          'synchronous',
          'X-nativea-Async',
        );
      }
    },
  );

  await t.test(
    'a model a protocol does not serve → 404 model_not_found naming where it is served',
    async (t) => {
      isError(
        t,
        await submitVideo(gw, 'native-a', videoBody(VIDEOB_MODEL)),
        404,
        'model_not_found',
        VIDEOB_MODEL,
        '/v1/videos/generations',
        '/api/v3/contents/generations/tasks',
      );
      isError(
        t,
        await submitVideo(gw, 'native-b', videoBody('videoa-1.1-i2v')),
        404,
        'model_not_found',
        'videoa-1.1-i2v',
      );
      isError(
        t,
        await submitVideo(gw, 'generic', { model: 'modela-5.5', input: { prompt: 'x' } }),
        404,
        'model_not_found',
        '/v1/chat/completions',
      );
      const chat = await postJson(`${gw.url}/v1/chat/completions`, videoBody('videoa-1.1-t2v'), gw.key);
      isError(t, chat, 404, 'model_not_found', 'videoa-1.1-t2v', '/v1/videos/generations');
    },
  );

  await t.test(
    "another key's task, an unknown id, or another protocol's path → 404 as for no task",
    async (t) => {
      const res = await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', 'task_ms=50'));
      const id = String(res.body.id);
      const stranger = await gw.createKey({ description: 'another team' });
      isError(t, await queryVideo(gw, 'generic', id, stranger), 404, 'task_not_found', id);
      isError(t, await queryVideo(gw, 'generic', 'video_doesnotexist'), 404, 'task_not_found');
      isError(t, await queryVideo(gw, 'native-a', id), 404, 'task_not_found');
      t.equal((await queryVideo(gw, 'generic', id)).status, 200, 'the owner still reads it');
    },
  );

  await t.test('Idempotency-Key: the same body returns the first task; another body → 409', async (t) => {
    const body = videoBody('videoa-1.1-t2v', 'task_ms=50');
    const key = { 'idempotency-key': 'order-42' };
    const before = gw.sim.tasks.list().length;
    const first = await submitVideo(gw, 'generic', body, key);
    const again = await Promise.all([1, 2, 3].map(() => submitVideo(gw, 'generic', body, key)));
    for (const res of again) t.equal(res.body.id, first.body.id, 'the first task, not a new one');
    t.equal(gw.sim.tasks.list().length, before + 1, 'one paid upstream task');
    const other = await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', 'task_ms=60'), key);
    isError(t, other, 409, 'idempotency_key_reused', 'order-42');
    const otherKey = await gw.createKey({});
    const theirs = await submitVideo(gw, 'generic', body, key, otherKey);
    t.not(theirs.body.id, first.body.id, "another API key's Idempotency-Key is its own");
  });

  await t.test(
    "an upstream refusal at submit passes through with the upstream's status and body",
    async (t) => {
      const before = gw.sim.tasks.list().length;
      const res = await submitVideo(gw, 'native-a', videoBody('videoa-1.1-t2v', 'status=429'));
      t.equal(res.status, 429);
      t.match(res.body, { code: 'Throttling', request_id: String }, "the vendor's own error body");
      t.equal(gw.sim.tasks.list().length, before, 'no upstream task');
      const retried = await submitVideo(gw, 'native-a', videoBody('videoa-1.1-t2v', 'status=429'), {
        'idempotency-key': 'retry-me',
      });
      t.equal(retried.status, 429);
      const ok = await submitVideo(gw, 'native-a', videoBody('videoa-1.1-t2v', 'task_ms=50'), {
        'idempotency-key': 'retry-me',
      });
      t.equal(ok.status, 200, 'a refused submit holds no claim on its key: a corrected body is accepted');
    },
  );
});

void t.test('a task past its deadline fails with deadline_exceeded, never billed', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
    upstreams['videob-main']!.poll = { every: '25ms', max_every: '50ms', deadline: '300ms', per_second: 0 };
  });
  const { id, done } = await finishedTask(gw, 'native-b', 'task_ms=10000');
  t.match(done.body, { status: 'failed', error: { code: 'deadline_exceeded', message: /within/ } });
  await notBilled(t, gw, id);
});
