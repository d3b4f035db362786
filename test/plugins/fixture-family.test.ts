/**
 * "Add an upstream plugin" of docs/plugins.md, step by step: a chat family, a video family and a task
 * protocol, each defined only in a folder of its own under test/ (`test/fixtures/plugins/acme*`), given an
 * entry in the configuration, and served through the real pipeline (auth, routing, metering, the video poller
 * and biller): the chat family to the `openai` SDK with its own field table enforced, the video family
 * through its own protocol and the generic one. Nothing outside those folders and the configuration is
 * edited.
 */
import 'reflect-metadata';
import t from 'tap';
import OpenAI from 'openai';
import '../fixtures/plugins/acme';
import '../fixtures/plugins/acme-jobs';
import '../fixtures/plugins/acme-video';
import { startTestGateway } from '../helpers/gateway';
import { getJson, postJson } from '../helpers/http';
import { eventually } from '../helpers/wait';
import { isError } from '../helpers/errors';
import { chat, hello, newId, upstreamBody, upstreamOf } from './chat-helpers';
import { untilFinished, videoBody } from './video-helpers';

t.test('a chat family defined under test/ is served like a built-in', async (t) => {
  // Step 2: an upstream entry naming the plugin, and (since the simulator speaks for modelc) a route
  // that sends the family's model to it under the simulator's model id.
  const gw = await startTestGateway(t, (doc) => {
    (doc.upstreams as Record<string, unknown>)['acme-main'] = {
      plugin: 'acme',
      base_url: `${simulatorUrl(doc)}/modelc/compatible-mode/v1`,
      api_key: 'sim-modelc-key',
    };
    doc.routes = {
      ...(doc.routes as Record<string, unknown> | undefined),
      'acme-1': { targets: [{ upstream: 'acme-main', model: 'modelc-3.6-flash' }] },
    };
  });
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });

  const models = await client.models.list();
  const listed = models.data.filter((m) => m.owned_by === 'acme').map((m) => m.id);
  t.strictSame(listed.sort(), ['acme-1', 'acme-2-mini'], 'its models are in the model list');

  const completion = await client.chat.completions.create({
    model: 'acme-1',
    messages: [{ role: 'user', content: 'hi #sim tokens=4' }],
    max_tokens: 20,
  });
  t.equal(completion.choices[0]?.message.content?.split(' ').length, 4);
  t.equal(completion.usage?.completion_tokens, 4);

  const stream = await client.chat.completions.create({
    model: 'acme-1',
    messages: [{ role: 'user', content: 'count #sim tokens=6' }],
    stream: true,
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  t.equal(text.trim().split(' ').length, 6, 'a stream read to its end');

  const id = newId('acme-fields');
  const res = await chat(gw, { model: 'acme-1', messages: hello, top_k: 7, max_tokens: 9 }, id);
  t.equal(res.status, 200, res.text.slice(0, 200));
  const sent = upstreamBody(gw, id);
  t.equal(sent.top_k, 7, 'its own field arrives upstream');
  t.equal(sent.max_completion_tokens, 9, 'and its rename is applied');
  t.equal(sent.model, 'modelc-3.6-flash', 'under the route model');

  const refusedId = newId('acme-refused');
  const refused = await chat(gw, { model: 'acme-1', messages: hello, logprobs: true }, refusedId);
  isError(t, refused, 400, 'unsupported_field', "'logprobs'", "'acme-1'");
  t.equal(upstreamOf(gw, refusedId).length, 0, 'a contract field it does not take never leaves');
  const invalid = await chat(gw, { model: 'acme-1', messages: hello, top_k: 0 }, newId('acme-invalid'));
  isError(t, invalid, 400, 'invalid_request', "'top_k'", 'from 1 to 100');

  const records = await gw.gateway.usage.list({ id });
  t.match(records, [{ model: 'acme-1', upstream: 'acme-main', completion_tokens: Number }], 'metered');
});

t.test('a video family and a task protocol defined under test/ run and bill a task', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    (doc.upstreams as Record<string, unknown>)['acme-video-main'] = {
      plugin: 'acme-video',
      base_url: `${simulatorUrl(doc)}/videoa`,
      api_key: 'sim-videoa-key',
      poll: { every: '20ms', max_every: '60ms', deadline: '30s' },
    };
    doc.routes = {
      ...(doc.routes as Record<string, unknown> | undefined),
      'acme-video-1': { targets: [{ upstream: 'acme-video-main', model: 'videoa-1.1-t2v' }] },
    };
    const video = doc.video as Record<string, unknown>;
    video.protocols = { generic: {}, 'acme-jobs': {} }; // step 3: the protocol, beside the generic one
  });
  type Job = { job: string; state: string; video?: string; request: string };
  const body = videoBody('acme-video-1', 'task_ms=100');
  const submitted = await postJson<Job>(`${gw.url}/acme/v1/jobs`, body, gw.key);
  t.equal(submitted.status, 200, submitted.text.slice(0, 200));
  t.match(submitted.body, { job: /^job_/, state: 'waiting' }, "the protocol's own answer and words");

  let done: Job | undefined;
  await eventually(async () => {
    done = (await getJson<Job>(`${gw.url}/acme/v1/jobs/${submitted.body.job}`, gw.key)).body;
    return done.state === 'done';
  }, 10_000);
  t.type(done?.video, 'string', 'finished, with its video');
  await eventually(async () => (await gw.gateway.usage.list({ id: submitted.body.job })).length === 1);
  t.match(await gw.gateway.usage.list({ id: submitted.body.job }), [
    { model: 'acme-video-1', upstream: 'acme-video-main', endpoint: 'video', video_seconds: 5 },
  ]);
  t.pass("billed once, as the family's model");

  const generic = await postJson<{ id: string }>(`${gw.url}/v1/videos/generations`, body, gw.key);
  t.equal(generic.status, 200, 'the family is served through the generic protocol too');
  t.match((await untilFinished(gw, 'generic', generic.body.id)).body, { status: 'completed' });
});

/** The simulator's address, from the test configuration's own modelc entry. */
function simulatorUrl(doc: Record<string, unknown>): string {
  const modelc = (doc.upstreams as Record<string, { base_url: string }>)['modelc-main']!;
  return modelc.base_url.replace(/\/modelc\/compatible-mode\/v1$/, '');
}
