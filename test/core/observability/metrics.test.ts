/**
 * GET /metrics after known traffic: answered calls and refused ones (401, 403, 404, 429 by rate and by
 * budget, an unknown path), a stream, and a video task polled and billed; counts as sent, histograms
 * present, labels bounded (a made-up model adds no series), and each gateway with its own registry.
 */
import t from 'tap';
import { startTestGateway, type ConfigDoc } from '../../helpers/gateway';
import { refusedUrl } from '../../helpers/ports';
import { openStream, postJson, untilData } from '../../helpers/http';
import { eventually } from '../../helpers/wait';
import { scrape } from '../../helpers/metrics';
import { submitVideo, videoBody } from '../../plugins/video-helpers';

const MODEL = 'modela-5.5';
const VIDEO_MODEL = 'videoa-1.1-t2v';
const chat = { model: MODEL, messages: [{ role: 'user', content: 'hi' }] };
const CHAT = { endpoint: 'chat-completions' };

const priced = (doc: ConfigDoc): void => {
  (doc.prices as Record<string, unknown>)['modela-*'] = { input_per_mtok: 1, output_per_mtok: 2 };
};

void t.test('metrics after known traffic', async (t) => {
  const gw = await startTestGateway(t, priced);
  const other = await startTestGateway(t);
  const url = `${gw.url}/v1/chat/completions`;

  const statuses: number[] = [];
  const send = async (body: unknown, key: string | undefined, headers: Record<string, string> = {}) => {
    const res = await postJson(url, body, key, headers);
    statuses.push(res.status);
    return res;
  };
  await send(chat, gw.key);
  await send(chat, gw.key);
  const oneAMinute = await gw.createKey({ rate_limit_rpm: 1 });
  await send(chat, oneAMinute);
  t.equal((await send(chat, oneAMinute)).status, 429, 'rate limited');
  const budgeted = await gw.createKey({ budget: { amount_micros: 1, period: 'total' } });
  await send(chat, budgeted);
  t.equal((await send(chat, budgeted)).status, 429, 'budget exhausted');
  t.equal((await send(chat, undefined)).status, 401);
  const narrow = await gw.createKey({ allowed_models: ['modelc-*'] });
  t.equal((await send(chat, narrow)).status, 403);
  t.equal((await send({ ...chat, model: 'made-up-model' }, gw.key)).status, 404);
  t.equal((await postJson(`${gw.url}/no/such/path`, chat, gw.key)).status, 404);
  t.equal((await send(chat, gw.key, { 'x-sim-status': '400' })).status, 400, "the vendor's own error");

  // A stream, scraped while it is open and after: two seconds long (40 tokens at 20 a second), so that it
  // is still open at the scrape after its first event even on a machine that stalls.
  const stream = await openStream(url, { ...chat, stream: true }, gw.key, {
    'x-sim-tps': '20',
    'x-sim-tokens': '40',
  });
  t.equal(stream.statusCode, 200, 'the stream started');
  stream.setEncoding('utf8');
  await untilData(stream, 'data:');
  t.equal((await scrape(gw.gateway.adminUrl)).value('gateway_open_streams'), 1, 'one stream open');
  await new Promise((resolve) => stream.on('end', resolve).resume());

  const video = await submitVideo(gw, 'generic', videoBody(VIDEO_MODEL, 'task_ms=100'));
  t.equal(video.status, 200);
  const taskId = String(video.body.id);
  await eventually(async () => (await gw.gateway.tasks.get(taskId))?.billed === true, 10_000);
  await gw.gateway.usage.flush();

  const m = await scrape(gw.gateway.adminUrl);
  t.match(m.contentType, /^text\/plain; version=0\.0\.4/);

  t.test('requests by endpoint, model, upstream, status and outcome', (t) => {
    const ok = statuses.filter((s) => s === 200).length + 1; // and the stream
    t.equal(
      m.value('gateway_requests_total', { ...CHAT, model: MODEL, upstream: 'modela-main', status: '200' }),
      ok,
    );
    t.equal(m.value('gateway_requests_total', { ...CHAT, status: '200', outcome: 'ok' }), ok, 'answered: ok');
    t.equal(m.value('gateway_requests_total', { ...CHAT, status: '429' }), 2);
    t.equal(
      m.value('gateway_requests_total', { ...CHAT, status: '429', outcome: 'refused' }),
      2,
      'limits refuse',
    );
    t.equal(
      m.value('gateway_requests_total', { ...CHAT, model: MODEL, status: '400', outcome: 'vendor_error' }),
      1,
      "a vendor's error relayed is no success",
    );
    t.equal(
      m.value('gateway_requests_total', { endpoint: 'none', outcome: 'refused' }),
      1,
      'before the pipeline',
    );
    t.equal(m.value('gateway_requests_total', { ...CHAT, model: 'none', status: '401' }), 1);
    t.equal(m.value('gateway_requests_total', { ...CHAT, model: 'none', status: '403' }), 1);
    t.equal(m.value('gateway_requests_total', { ...CHAT, model: 'none', status: '404' }), 1);
    t.equal(m.value('gateway_requests_total', { endpoint: 'none', status: '404' }), 1, 'the unknown path');
    t.equal(
      m.value('gateway_requests_total', { model: VIDEO_MODEL, upstream: 'videoa-main', status: '200' }),
      1,
    );
    t.notOk(
      m.samples.some((s) => Object.values(s.labels).includes('made-up-model')),
      "a client's made-up model is no label",
    );
    t.notOk(
      m.samples.some((s) => 'key_id' in s.labels || 'key' in s.labels),
      'no key in any label',
    );
    t.end();
  });

  t.test('refusals by code', (t) => {
    for (const code of [
      'rate_limited',
      'budget_exhausted',
      'unauthorized',
      'model_not_allowed',
      'model_not_found',
      'not_found',
    ])
      t.equal(m.value('gateway_error_responses_total', { code }), 1, code);
    t.end();
  });

  t.test('latency histograms', (t) => {
    for (const name of [
      'gateway_request_duration_seconds',
      'gateway_request_overhead_seconds',
      'gateway_upstream_duration_seconds',
      'gateway_stream_first_byte_seconds',
      'gateway_video_poll_lag_seconds',
    ])
      t.equal(m.types.get(name), 'histogram', name);
    const chats = statuses.length + 1; // every call to the chat endpoint, and the stream
    t.equal(m.value('gateway_request_overhead_seconds_count', CHAT), chats);
    t.equal(m.value('gateway_request_overhead_seconds_bucket', { ...CHAT, le: '+Inf' }), chats);
    const upstreamCalls = statuses.filter((s) => s === 200 || s === 400).length + 1; // the vendor's 400 too
    t.equal(m.value('gateway_upstream_duration_seconds_count', { upstream: 'modela-main' }), upstreamCalls);
    t.equal(m.value('gateway_stream_first_byte_seconds_count', { upstream: 'modela-main' }), 1);
    t.ok(m.value('gateway_stream_first_byte_seconds_sum', { upstream: 'modela-main' }) > 0);
    t.equal(m.value('gateway_open_streams'), 0, 'the stream closed');
    t.end();
  });

  t.test('tokens and cost by model, as the usage records say', async (t) => {
    const records = (await gw.gateway.usage.list()).filter((r) => r.model === MODEL);
    const sum = (f: (r: (typeof records)[number]) => number) => records.reduce((n, r) => n + f(r), 0);
    t.ok(sum((r) => r.completion_tokens) > 0);
    t.equal(
      m.value('gateway_tokens_total', { model: MODEL, kind: 'prompt' }),
      sum((r) => r.prompt_tokens),
    );
    t.equal(
      m.value('gateway_tokens_total', { model: MODEL, kind: 'completion' }),
      sum((r) => r.completion_tokens),
    );
    t.ok(
      Math.abs(m.value('gateway_cost_total', { model: MODEL }) - sum((r) => r.cost_micros ?? 0) / 1e6) < 1e-9,
    );
    t.equal(m.value('gateway_cost_total', { model: VIDEO_MODEL }), 0.5, '5 s at 0.1 a second');
  });

  t.test('the video poller, the usage queue, the configuration, the process', async (t) => {
    t.ok(m.value('gateway_video_polls_total', { upstream: 'videoa-main', result: 'ok' }) >= 1);
    t.ok(m.value('gateway_video_poll_lag_seconds_count') >= 1);
    // Task counts are read from the store at most every 5 s, however often Prometheus scrapes.
    await eventually(
      async () =>
        (await scrape(gw.gateway.adminUrl)).value('gateway_video_tasks', { state: 'succeeded' }) === 1,
      15_000,
      'one succeeded task in gateway_video_tasks',
    );
    t.pass('tasks by state: one succeeded');
    t.equal(m.find('gateway_usage_queue_records').length, 1);
    t.equal(m.value('gateway_usage_write_failures_total'), 0);
    const info = m.find('gateway_config_info');
    t.equal(info.length, 1);
    t.match(info[0]!.labels.hash, /^[0-9a-f]{64}$/);
    t.equal(info[0]!.value, 1);
    t.equal(m.types.get('process_cpu_user_seconds_total'), 'counter', 'default process metrics');
  });

  t.test('another gateway in the same process counts on its own', async (t) => {
    const mine = await scrape(other.gateway.adminUrl);
    t.equal(mine.value('gateway_requests_total'), 0);
  });

  t.test('served without the admin token; the admin API still wants it', async (t) => {
    t.equal((await fetch(`${gw.gateway.adminUrl}/admin/keys`)).status, 401);
    t.equal((await fetch(`${gw.gateway.adminUrl}/metrics`)).status, 200);
  });
});

void t.test('upstream failures, retries and ejections', async (t) => {
  const closed = refusedUrl('/modela/v1');
  const gw = await startTestGateway(t, (doc) => {
    const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
    upstreams['modela-backup'] = { ...upstreams['modela-main'] };
    upstreams['modela-main']!.base_url = closed;
    doc.routes = {
      [MODEL]: { targets: [{ upstream: 'modela-main' }], fallbacks: [{ upstream: 'modela-backup' }] },
    };
    doc.resilience = { ejection: { consecutive_failures: 2, base: '1m' } };
  });
  const first = await postJson(`${gw.url}/v1/chat/completions`, chat, gw.key);
  t.equal(first.status, 200, 'the fallback answered');
  const m = await scrape(gw.gateway.adminUrl);
  t.equal(
    m.value('gateway_upstream_failures_total', { upstream: 'modela-main', reason: 'upstream_unreachable' }),
    1,
  );
  t.equal(m.value('gateway_upstream_retries_total', { from: 'modela-main', to: 'modela-backup' }), 1);
  t.equal(m.value('gateway_requests_total', { model: MODEL, upstream: 'modela-backup', status: '200' }), 1);
  // The second call fails on main again, its second failure in a row: main is ejected.
  await postJson(`${gw.url}/v1/chat/completions`, chat, gw.key);
  const after = await scrape(gw.gateway.adminUrl);
  t.equal(after.value('gateway_upstream_ejections_total', { upstream: 'modela-main' }), 1);
  t.equal(after.value('gateway_upstreams_ejected'), 1);
});
