/**
 * OpenTelemetry traces end to end: the official `openai` and `@anthropic-ai/sdk` clients against a real
 * gateway whose `tracing:` section points at a real OTLP/HTTP receiver. Plain, streamed, retried and
 * fallen-back calls each arrive as one trace: the SERVER span continuing the client's `traceparent`,
 * a CLIENT span per upstream attempt (the one named upstream in `traceparent`), stages' I/O as children,
 * with the GenAI conventions' attributes and never a key or prompt text unless content is opted in.
 */
import t, { type Test } from 'tap';
import OpenAI from 'openai';
import { startTestGateway, withModelaBackup, type ConfigDoc, type TestGateway } from '../helpers/gateway';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { gatewayAnthropic } from '../helpers/anthropic-client';
import { recordingLogger } from '../helpers/logs';
import { redisPrefix, TEST_REDIS_URL } from '../helpers/redis';
import { startSimulator, type RunningSimulator } from '../../simulator/server';

const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const PROMPT = 'the secret recipe is saffron #sim tokens=3';

interface Traced extends TestGateway {
  readonly receiver: OtlpReceiver;
  readonly backup: RunningSimulator;
  readonly openai: OpenAI;
}

/** A gateway tracing to a receiver, whose modela-5.5 goes to the simulator and falls back to a second. */
async function startTraced(
  t: Test,
  adjust: (doc: ConfigDoc, backup: RunningSimulator) => void = () => undefined,
  options = {},
): Promise<Traced> {
  const receiver = await startOtlpReceiver(t);
  const backup = await startSimulator();
  t.teardown(() => backup.close());
  const gw = await startTestGateway(
    t,
    (doc) => {
      withModelaBackup(doc, backup.url);
      doc.tracing = { endpoint: receiver.url, batch: { schedule_delay: '20ms' } };
      adjust(doc, backup);
    },
    options,
  );
  const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  return { ...gw, receiver, backup, openai };
}

/** The spans of the trace whose SERVER span has `attribute` = `value`, once all `count` arrived. */
async function traceOf(receiver: OtlpReceiver, count: number, requestId?: string): Promise<ReceivedSpan[]> {
  const serverOf = (spans: readonly ReceivedSpan[]) =>
    spans.find((s) => s.kind === SERVER && (!requestId || s.attributes['gateway.request_id'] === requestId));
  const spans = await receiver.until((all) => {
    const server = serverOf(all);
    return !!server && all.filter((s) => s.traceId === server.traceId).length >= count;
  });
  const server = serverOf(spans)!;
  return spans.filter((s) => s.traceId === server.traceId);
}

const byKind = (spans: readonly ReceivedSpan[], kind: number) => spans.filter((s) => s.kind === kind);

/** No span holds the key or the prompt's text, in any attribute or event. */
function assertNothingSecret(t: Test, spans: readonly ReceivedSpan[], key: string): void {
  const text = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events]));
  t.notOk(text.includes(key), 'no span holds the key');
  t.notOk(text.includes(key.slice(12)), 'nor its secret part');
  t.notOk(text.includes('saffron'), 'nor the prompt');
}

t.test('a plain call: one trace from the client, a CLIENT span named upstream', async (t) => {
  const gw = await startTraced(t);
  const completion = await gw.openai.chat.completions.create(
    { model: 'modela-5.5', max_tokens: 50, messages: [{ role: 'user', content: PROMPT }] },
    { headers: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, 'x-request-id': 'plain-call' } },
  );
  t.ok(completion.choices[0]?.message.content);
  const spans = await traceOf(gw.receiver, 3, 'plain-call');
  const [server] = byKind(spans, SERVER);
  const [attempt] = byKind(spans, CLIENT);
  t.equal(server?.traceId, CLIENT_TRACE, "the client's trace continues");
  t.equal(server?.parentSpanId, CLIENT_SPAN, "under the client's span");
  t.equal(server?.name, 'POST /v1/chat/completions');
  const keyId = gw.key.slice(0, 11);
  t.match(server?.attributes, {
    'http.request.method': 'POST',
    'http.route': '/v1/chat/completions',
    'http.response.status_code': 200,
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'modela',
    'gen_ai.request.model': 'modela-5.5',
    'gen_ai.response.model': 'modela-5.5',
    'gen_ai.request.max_tokens': 50,
    'gen_ai.usage.input_tokens': Number,
    'gen_ai.usage.output_tokens': 3,
    'gen_ai.response.finish_reasons': ['stop'],
    'gateway.key_id': keyId,
    'gateway.upstream': 'modela-main',
    'gateway.outcome': 'ok',
    'gateway.request_id': 'plain-call',
  });
  t.equal(server?.status, 0, 'a 200 leaves the status unset');
  t.equal(attempt?.parentSpanId, server?.spanId, 'the attempt is a child of the request');
  t.equal(attempt?.name, 'chat modela-5.5');
  t.match(attempt?.attributes, {
    'gateway.attempt': 1,
    'gateway.attempt.kind': 'first',
    'gateway.upstream': 'modela-main',
    'http.response.status_code': 200,
    'server.address': '127.0.0.1',
    'gen_ai.usage.output_tokens': 3,
    'gen_ai.response.finish_reasons': ['stop'],
  });
  t.notOk(String(attempt?.attributes['url.full']).includes('?'), 'the URL without any query');
  const [sent] = gw.sim.log.list().filter((r) => r.path.includes('/chat/'));
  t.equal(
    sent?.headers.traceparent,
    `00-${CLIENT_TRACE}-${attempt?.spanId}-01`,
    "the upstream's traceparent names the attempt's span",
  );
  const [lookup] = byKind(spans, INTERNAL);
  t.equal(lookup?.name, 'key lookup', "the key's first lookup (a cache miss) is the request's I/O");
  t.equal(lookup?.parentSpanId, server?.spanId);
  assertNothingSecret(t, spans, gw.key);
});

t.test('a rate-limit decision made on Redis is a child span of the request', async (t) => {
  const gw = await startTraced(t, (doc) => {
    doc.redis = { url: TEST_REDIS_URL, key_prefix: redisPrefix(t) };
    doc.pipeline = (doc.pipeline as unknown[]).map((stage) =>
      typeof stage === 'object' && stage !== null && 'rate-limit' in stage
        ? { 'rate-limit': { backend: 'redis', requests_per_minute: 100_000 } }
        : stage,
    );
  });
  await gw.openai.chat.completions.create(
    { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] },
    { headers: { 'x-request-id': 'on-redis' } },
  );
  const spans = await traceOf(gw.receiver, 4, 'on-redis');
  const [server] = byKind(spans, SERVER);
  const decision = spans.find((s) => s.name === 'rate limit decision');
  t.equal(decision?.kind, INTERNAL);
  t.equal(decision?.parentSpanId, server?.spanId, 'under the request');
  t.ok(
    decision && server && decision.startNs >= server.startNs && decision.endNs <= server.endNs,
    'within it',
  );
});

t.test('a streamed call records its first token as an event and an attribute', async (t) => {
  const gw = await startTraced(t);
  const stream = await gw.openai.chat.completions.create(
    { model: 'modela-5.5', stream: true, messages: [{ role: 'user', content: 'hi #sim tokens=6' }] },
    { headers: { 'x-request-id': 'streamed-call' } },
  );
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  t.equal(text.trim().split(/\s+/).length, 6);
  const spans = await traceOf(gw.receiver, 2, 'streamed-call');
  const [server] = byKind(spans, SERVER);
  t.equal(server?.parentSpanId, '', 'a request without traceparent starts a trace');
  const ttft = server?.attributes['gen_ai.response.time_to_first_chunk'];
  t.type(ttft, 'number');
  t.ok((ttft as number) > 0, 'the time to the first token, in seconds');
  t.strictSame(
    server?.events.map((e) => e.name),
    ['gen_ai.first_token'],
  );
  t.match(server?.attributes, {
    'gen_ai.request.stream': true,
    'gen_ai.usage.output_tokens': 6,
    'gen_ai.response.finish_reasons': ['stop'],
  });
});

t.test('a fallback: two attempts, the second saying why', async (t) => {
  const gw = await startTraced(t);
  gw.sim.faults.add({ match: { path_prefix: '/modela/' }, fault: { status: 503 }, times: 1 });
  await gw.openai.chat.completions.create(
    { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi #sim tokens=3' }] },
    { headers: { 'x-request-id': 'fallen-back' } },
  );
  const spans = await traceOf(gw.receiver, 3, 'fallen-back');
  const [server] = byKind(spans, SERVER);
  const attempts = byKind(spans, CLIENT).sort(
    (a, b) => Number(a.attributes['gateway.attempt']) - Number(b.attributes['gateway.attempt']),
  );
  t.equal(attempts.length, 2);
  for (const attempt of attempts) t.equal(attempt.parentSpanId, server?.spanId);
  t.match(attempts[0]?.attributes, {
    'gateway.attempt': 1,
    'gateway.attempt.kind': 'first',
    'gateway.upstream': 'modela-main',
    'http.response.status_code': 503,
    'error.type': '503',
  });
  t.equal(attempts[0]?.status, 2, 'the failed attempt is an error');
  t.match(attempts[1]?.attributes, {
    'gateway.attempt': 2,
    'gateway.attempt.kind': 'fallback',
    'gateway.attempt.reason': 'status 503',
    'gateway.upstream': 'modela-backup',
    'http.response.status_code': 200,
  });
  t.equal(attempts[1]?.status, 0);
  t.match(server?.attributes, { 'gateway.upstream': 'modela-backup', 'http.response.status_code': 200 });
  const [sent] = gw.backup.log.list().filter((r) => r.path.includes('/chat/'));
  t.match(String(sent?.headers.traceparent), new RegExp(`^00-${server?.traceId}-${attempts[1]?.spanId}-01$`));
});

t.test("a retry on the route's other target, and an unanswered one as a 502", async (t) => {
  const gw = await startTraced(t, (doc) => {
    doc.routes = {
      // The first attempt goes to modela-main all but once in a million.
      'modela-5.5': {
        targets: [
          { upstream: 'modela-main', weight: 1_000_000 },
          { upstream: 'modela-backup', weight: 1 },
        ],
      },
    };
  });
  gw.sim.faults.add({ match: { path_prefix: '/modela/' }, fault: { reset: true }, times: 1 });
  await gw.openai.chat.completions.create(
    { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi #sim tokens=3' }] },
    { headers: { 'x-request-id': 'retried' } },
  );
  const spans = await traceOf(gw.receiver, 3, 'retried');
  const attempts = byKind(spans, CLIENT);
  t.match(attempts.find((a) => a.attributes['gateway.attempt'] === 2)?.attributes, {
    'gateway.attempt.kind': 'retry',
    'gateway.attempt.reason': 'connect error',
    'gateway.upstream': 'modela-backup',
  });
  t.match(attempts.find((a) => a.attributes['gateway.attempt'] === 1)?.attributes, {
    'error.type': 'connect error',
  });

  gw.sim.faults.add({ fault: { status: 500 } });
  gw.backup.faults.add({ fault: { status: 500 } });
  await t.rejects(
    gw.openai.chat.completions.create(
      { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-request-id': 'failed' } },
    ),
  );
  const failed = await traceOf(gw.receiver, 3, 'failed');
  const [server] = byKind(failed, SERVER);
  t.match(server?.attributes, { 'http.response.status_code': 500, 'error.type': '500' });
  t.equal(server?.status, 2, 'a 5xx makes the request span an error');
});

t.test('the messages API: its own operation, stop reason and usage', async (t) => {
  const gw = await startTraced(t);
  const anthropic = gatewayAnthropic(gw);
  const stream = anthropic.messages.stream(
    {
      model: 'modeld-sonnet-4-6',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi #sim tokens=4' }],
    },
    { headers: { 'x-request-id': 'messages-call' } },
  );
  const message = await stream.finalMessage();
  t.equal(message.stop_reason, 'end_turn');
  const spans = await traceOf(gw.receiver, 2, 'messages-call');
  const [server] = byKind(spans, SERVER);
  t.match(server?.attributes, {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'modeld',
    'gen_ai.request.max_tokens': 64,
    'gen_ai.response.finish_reasons': ['end_turn'],
    'gen_ai.usage.output_tokens': 4,
  });
});

t.test('content is recorded only when the operator opts in', async (t) => {
  const gw = await startTraced(t, (doc) => {
    (doc.tracing as Record<string, unknown>).capture_content = true;
  });
  await gw.openai.chat.completions.create(
    { model: 'modela-5.5', messages: [{ role: 'user', content: PROMPT }] },
    { headers: { 'x-request-id': 'with-content' } },
  );
  const spans = await traceOf(gw.receiver, 2, 'with-content');
  const [server] = byKind(spans, SERVER);
  const [attempt] = byKind(spans, CLIENT);
  t.match(String(server?.attributes['gen_ai.input.messages']), /saffron/, 'the prompt');
  t.match(String(attempt?.attributes['gen_ai.output.messages']), /"role":"assistant"/, 'the answer');
  t.notOk(JSON.stringify(spans.map((s) => s.attributes)).includes(gw.key), 'never the key');
});

t.test('the access line and the metrics carry the trace id; a rejection is traced too', async (t) => {
  const { logger, lines } = recordingLogger('info');
  const gw = await startTraced(t, (doc) => ((doc.logging as Record<string, unknown>).level = 'info'), {
    logger,
  });
  await gw.openai.chat.completions.create(
    { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] },
    { headers: { 'x-request-id': 'logged' } },
  );
  const [server] = byKind(await traceOf(gw.receiver, 2, 'logged'), SERVER);
  const access = lines.find((l) => l.msg === 'request' && l.request_id === 'logged');
  t.equal(access?.trace_id, server?.traceId, 'the access line names the trace');

  const metrics = await fetch(`${gw.gateway.adminUrl}/metrics`, {
    headers: { authorization: `Bearer ${gw.gateway.adminToken}` },
  });
  t.match(metrics.headers.get('content-type'), /^application\/openmetrics-text/);
  const text = await metrics.text();
  t.match(
    text,
    new RegExp(
      `gateway_request_duration_seconds_bucket\\{[^}]*\\} \\d+ # \\{trace_id="${server?.traceId}",span_id="${server?.spanId}"\\}`,
    ),
    'a duration bucket holds the request as its exemplar',
  );

  const missing = await fetch(`${gw.url}/v1/nothing-here`, { headers: { 'x-request-id': 'rejected' } });
  t.equal(missing.status, 404);
  const [refusal] = await traceOf(gw.receiver, 1, 'rejected');
  t.match(refusal?.attributes, {
    'url.path': '/v1/nothing-here',
    'http.response.status_code': 404,
    'gateway.error_code': 'not_found',
  });
  t.equal(refusal?.status, 0, "a 4xx is not the server span's error");
});
