/**
 * Consumption ceilings (OWASP API4): a call may not ask an upstream for more than the model's limit, by
 * the vendor's documented defaults or gateway.yaml's `limits:`; over it → 400 naming the field and the
 * ceiling, and nothing goes upstream.
 */
import 'reflect-metadata';
import t, { type Test } from 'tap';
import { buildConfig } from '../../../config/load';
import { startGateway } from '../../../core/boot/gateway';
import { startTestGateway, tempDir, testConfig, type TestGateway } from '../../helpers/gateway';
import { isError } from '../../helpers/errors';
import { postJson } from '../../helpers/http';
import { newId } from '../../plugins/chat-helpers';
import { VERSION } from '../../plugins/messages-helpers';
import { PROTOCOLS, submitVideo, videoBody, VIDEOB_MODEL } from '../../plugins/video-helpers';

const hi = [{ role: 'user', content: 'hi' }];

async function refused(
  t: Test,
  gw: TestGateway,
  path: string,
  body: Record<string, unknown>,
  ...mentions: string[]
): Promise<void> {
  const id = newId('over');
  const res = await postJson(`${gw.url}${path}`, body, gw.key, { 'x-request-id': id, ...VERSION });
  isError(t, res, 400, 'invalid_request', ...mentions);
  t.equal(gw.sim.log.list(id).length, 0, 'nothing sent upstream');
}

void t.test('the vendors’ documented ceilings apply by default', async (t) => {
  const gw = await startTestGateway(t);
  const chat = '/v1/chat/completions';
  await refused(
    t,
    gw,
    chat,
    { model: 'modela-5.5', messages: hi, max_tokens: 1_000_000_000 },
    "'max_tokens'",
    '128000',
  );
  await refused(
    t,
    gw,
    chat,
    { model: 'modela-5.5', messages: hi, max_completion_tokens: 128_001 },
    "'max_completion_tokens'",
    '128000',
  );
  await refused(t, gw, chat, { model: 'modela-5.5', messages: hi, n: 129 }, "'n'", '128');
  await refused(t, gw, chat, { model: 'modelb-3.5-flash', messages: hi, n: 128 }, "'n'", 'at most 8');
  await refused(t, gw, chat, { model: 'modelc-3.7-max', messages: hi, n: 128 }, "'n'", 'at most 4');
  await refused(
    t,
    gw,
    chat,
    { model: 'modelc-3.6-flash', messages: hi, max_tokens: 32_769 },
    "'max_tokens'",
    '32768',
  );
  await refused(
    t,
    gw,
    '/v1/messages',
    { model: 'modeld-sonnet-4-6', messages: hi, max_tokens: 1_000_000_000 },
    "'max_tokens'",
    '64000',
    'modeld-sonnet-4-6',
  );
  await refused(
    t,
    gw,
    '/v1/images/generations',
    { model: 'modelb-3.1-flash-image-preview', prompt: 'x', n: 11 },
    "'n'",
    'at most 10',
  );
  const ok = await postJson(
    `${gw.url}/v1/messages`,
    { model: 'modeld-opus-4-8', messages: hi, max_tokens: 128_000 },
    gw.key,
    VERSION,
  );
  t.equal(ok.status, 200, 'the ceiling itself is allowed');

  await t.test('video: duration over the ceiling, or a resolution the model does not make', async (t) => {
    const cases = [
      {
        protocol: 'native-a' as const,
        body: videoBody('videoa-1.1-t2v', '', '720P', 3600),
        words: ["'parameters.duration'", '15'],
      },
      {
        protocol: 'generic' as const,
        body: videoBody('videoa-1.0-t2v', '', '4K', 5),
        words: ["'parameters.resolution'", '1080P'],
      },
      {
        protocol: 'native-b' as const,
        body: videoBody(VIDEOB_MODEL, '', '720p', 3600),
        words: ['--duration', '15'],
      },
      {
        protocol: 'native-b' as const,
        body: { model: VIDEOB_MODEL, content: [{ type: 'text', text: 'a cat' }], duration: 60 },
        words: ['duration', '15'],
      },
    ];
    for (const c of cases) {
      const before = await fetch(`${gw.sim.url}/_sim/tasks`).then((r) => r.text());
      const res = await submitVideo(gw, c.protocol, c.body);
      isError(t, res, 400, 'invalid_request', ...c.words);
      const after = await fetch(`${gw.sim.url}/_sim/tasks`).then((r) => r.text());
      t.equal(after, before, 'no upstream task');
    }
    const ok = await submitVideo(gw, 'native-a', videoBody('videoa-1.1-t2v', 'task_ms=50', '1080P', 15));
    t.equal(ok.status, 200, '15 s at 1080P is allowed');
    t.ok(PROTOCOLS['native-a'].taskId(ok.body));
  });
});

void t.test('gateway.yaml limits: tighten per model id or pattern, the exact id winning', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.limits = {
      'modela-*': { max_output_tokens: 1000, max_n: 2 },
      'modela-5.5': { max_output_tokens: 500 },
      'videoa-*': { max_video_seconds: 5, video_resolutions: ['720P'] },
    };
  });
  const chat = '/v1/chat/completions';
  await refused(t, gw, chat, { model: 'modela-5.5', messages: hi, max_tokens: 501 }, "'max_tokens'", '500');
  await refused(t, gw, chat, { model: 'modela-5.6-luna', messages: hi, max_tokens: 1001 }, '1000');
  await refused(t, gw, chat, { model: 'modela-5.5', messages: hi, n: 3 }, "'n'", 'at most 2');
  const ok = await postJson(
    `${gw.url}${chat}`,
    { model: 'modela-5.5', messages: hi, max_tokens: 500, n: 2 },
    gw.key,
  );
  t.equal(ok.status, 200, 'at the ceilings');
  const video = await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', '', '1080P', 5));
  isError(t, video, 400, 'invalid_request', "'parameters.resolution'", '720P');
});

void t.test('a limits: entry that names no served model stops start-up', async (t) => {
  const dir = await tempDir(t);
  const doc = testConfig('http://127.0.0.1:1', dir);
  doc.limits = { 'modelz-*': { max_n: 1 } };
  await t.rejects(startGateway(buildConfig(doc, {})), /^limits\.modelz-\*: no configured upstream/);
  doc.limits = { 'modela-5.5': { max_n: 0 } };
  t.throws(() => buildConfig(doc, {}), /limits\.modela-5\.5\.max_n/);
});
