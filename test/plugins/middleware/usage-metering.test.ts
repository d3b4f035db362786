import t from 'tap';
import { existsSync, symlinkSync } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { EmbeddedUsageStore } from '../../../core/stores/embedded/embedded-usage-store';
import type { UsageRecord } from '../../../core/stores/usage-store';
import { startTestGateway, withoutStage, type TestGateway } from '../../helpers/gateway';
import { getJson, openStream, postJson, type ErrorBody } from '../../helpers/http';
import { upstreamGate } from '../../helpers/upstream-gate';
import { eventually, until } from '../../helpers/wait';
import { TEST_USAGE_WRITES } from '../../helpers/stores';

const chat = (extra: Record<string, unknown> = {}) => ({
  model: 'modela-5.5',
  messages: [{ role: 'user', content: 'How many tokens is this?' }],
  ...extra,
});

interface ChatBody {
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** The records written for one request id (the store flushes its queue before reading). */
const recordsOf = (gw: TestGateway, id: string): Promise<UsageRecord[]> => gw.gateway.usage.list({ id });

/** Waits until the request's record is written (finish runs after the last byte), then returns them all. */
async function recordOf(gw: TestGateway, id: string): Promise<UsageRecord[]> {
  await eventually(async () => (await recordsOf(gw, id)).length > 0);
  return recordsOf(gw, id);
}

t.test('one usage record per routed call', async (t) => {
  const gw = await startTestGateway(t);
  const url = `${gw.url}/v1/chat/completions`;

  t.test('a JSON call is billed what the response reports', async (t) => {
    const id = 'meter-json';
    const before = Date.now();
    const res = await postJson<ChatBody>(url, chat(), gw.key, { 'x-request-id': id });
    const after = Date.now();
    t.equal(res.status, 200);
    const records = await recordOf(gw, id);
    t.equal(records.length, 1);
    const r = records[0]!;
    t.match(r, {
      id,
      key_id: gw.key.slice(0, 11),
      model: 'modela-5.5',
      upstream: 'modela-main',
      endpoint: 'chat-completions',
      status: 200,
      stream: false,
      prompt_tokens: res.body.usage.prompt_tokens,
      completion_tokens: res.body.usage.completion_tokens,
      total_tokens: res.body.usage.total_tokens,
      estimated: false,
      outcome: 'ok',
    });
    t.type(r.latency_ms, 'number');
    t.ok(r.latency_ms >= 0);
    const at = Date.parse(r.created_at);
    t.equal(new Date(at).toISOString(), r.created_at, 'created_at is an ISO time to the millisecond');
    t.ok(at >= before && at <= after, 'created_at is when the call ended');
  });

  t.test("a stream without include_usage is billed the upstream's real counts", async (t) => {
    // The JSON answer to the same prompt tells what the upstream counts for it.
    const reference = await postJson<ChatBody>(url, chat(), gw.key, { 'x-sim-tokens': '7' });
    const id = 'meter-stream';
    const res = await postJson(url, chat({ stream: true }), gw.key, {
      'x-request-id': id,
      'x-sim-tokens': '7',
    });
    t.equal(res.status, 200);
    t.notOk(res.text.includes('"usage"'), 'the client, which did not ask, sees no usage');
    const [r] = await recordOf(gw, id);
    t.match(r, {
      stream: true,
      status: 200,
      prompt_tokens: reference.body.usage.prompt_tokens,
      completion_tokens: 7,
      total_tokens: reference.body.usage.prompt_tokens + 7,
      estimated: false,
      outcome: 'ok',
    });
  });

  t.test('a cut stream is billed an estimate of what was delivered', async (t) => {
    const id = 'meter-cut';
    // 50 tokens were planned; only three words ("Lorem ipsum dolor", 17 characters) get through.
    const res = await postJson(url, chat({ stream: true }), gw.key, {
      'x-request-id': id,
      'x-sim-tokens': '50',
      'x-sim-cut-after': '3',
    });
    t.match(res.text, /upstream_stream_cut/);
    const records = await recordOf(gw, id);
    t.equal(records.length, 1);
    const r = records[0]!;
    t.match(r, { status: 200, estimated: true, outcome: 'upstream_cut' });
    t.ok(r.completion_tokens > 0 && r.completion_tokens <= 6, `${r.completion_tokens} completion tokens`);
    t.ok(r.prompt_tokens > 0, 'the prompt is estimated too');
    t.equal(r.total_tokens, r.prompt_tokens + r.completion_tokens);
  });

  t.test('a client that leaves mid-stream gets one estimated record', async (t) => {
    const id = 'meter-client-gone';
    const res = await openStream(url, chat({ stream: true }), gw.key, {
      'x-request-id': id,
      'x-sim-tps': '5',
      'x-sim-tokens': '50',
    });
    res.setEncoding('utf8');
    // Leave once some content was delivered, so there is something to estimate.
    await new Promise<void>((resolve) =>
      res.on('data', (text: string) => text.includes('"content":"Lorem"') && resolve()),
    );
    res.socket.destroy();
    // The upstream is aborted by the same close that ends the exchange; after it, nothing more is due.
    await eventually(() => gw.sim.log.list(id)[0]?.aborted === true);
    const records = await recordOf(gw, id);
    await gw.gateway.usage.flush();
    t.strictSame(await recordsOf(gw, id), records, 'nothing more after the flush');
    t.equal(records.length, 1);
    t.match(records[0], { outcome: 'client_closed', estimated: true, status: 200, stream: true });
    t.ok(records[0]!.completion_tokens > 0, 'what was delivered is billed');
  });

  t.test('an upstream error status is recorded with zero tokens', async (t) => {
    const id = 'meter-upstream-500';
    const res = await postJson(url, chat(), gw.key, { 'x-request-id': id, 'x-sim-status': '500' });
    t.equal(res.status, 500);
    const records = await recordOf(gw, id);
    t.equal(records.length, 1);
    t.match(records[0], { status: 500, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });

  t.test('calls refused before routing leave no record', async (t) => {
    const unauthorized = await postJson(url, chat(), 'sk-not-a-key', { 'x-request-id': 'meter-401' });
    t.equal(unauthorized.status, 401);
    const unknown = await postJson(url, chat({ model: 'no-such-model' }), gw.key, {
      'x-request-id': 'meter-404',
    });
    t.equal(unknown.status, 404);
    // A routed call after them: once its record is there, any record of theirs would be too.
    await postJson(url, chat(), gw.key, { 'x-request-id': 'meter-after-refused' });
    await recordOf(gw, 'meter-after-refused');
    t.same(await recordsOf(gw, 'meter-401'), []);
    t.same(await recordsOf(gw, 'meter-404'), []);
  });

  t.test('a 400 from field validation after routing is recorded with zero tokens', async (t) => {
    const id = 'meter-400';
    // enable_thinking is a modelc field: modela refuses it once the route is known.
    const res = await postJson(url, chat({ enable_thinking: true }), gw.key, { 'x-request-id': id });
    t.equal(res.status, 400);
    const records = await recordOf(gw, id);
    t.equal(records.length, 1);
    t.match(records[0], { status: 400, model: 'modela-5.5', total_tokens: 0, completion_tokens: 0 });
    t.equal(gw.sim.log.list(id).length, 0, 'nothing went upstream');
  });

  t.test('50 concurrent calls → exactly 50 records, none doubled', async (t) => {
    const ids = Array.from({ length: 50 }, (_, i) => `meter-many-${i}`);
    const statuses = await Promise.all(
      ids.map(async (id, i) => {
        const res = await postJson(url, chat({ stream: i % 2 === 0 }), gw.key, { 'x-request-id': id });
        return res.status;
      }),
    );
    t.ok(
      statuses.every((s) => s === 200),
      'every call succeeded',
    );
    const count = async () => {
      const mine = (await gw.gateway.usage.list()).filter((r) => r.id.startsWith('meter-many-'));
      return { total: mine.length, distinct: new Set(mine.map((r) => r.id)).size };
    };
    await eventually(async () => (await count()).total >= 50);
    t.strictSame(await count(), { total: 50, distinct: 50 });
    await gw.gateway.usage.flush();
    t.strictSame(await count(), { total: 50, distinct: 50 }, 'still 50 after another flush');
  });
});

t.test('records survive a restart of the store', async (t) => {
  const gw = await startTestGateway(t);
  const ids = ['persist-1', 'persist-2'];
  for (const id of ids) {
    const res = await postJson(`${gw.url}/v1/chat/completions`, chat(), gw.key, { 'x-request-id': id });
    t.equal(res.status, 200);
  }
  await gw.gateway.close(); // flushes the queued records
  const lines = (await readFile(join(gw.dataDir, 'usage.jsonl'), 'utf8')).split('\n').filter(Boolean);
  const onDisk = lines.map((line) => JSON.parse(line) as UsageRecord);
  t.strictSame(
    onDisk.map((r) => r.id),
    ids,
    'one line per call in usage.jsonl',
  );
  // A fresh store over the same directory, as after a restart, reads them back.
  const reopened = await EmbeddedUsageStore.open(gw.dataDir, TEST_USAGE_WRITES);
  t.teardown(() => reopened.close());
  const [again] = await reopened.list({ id: 'persist-2' });
  t.strictSame(again, onDisk[1]);
});

t.test('without sse-relay a piped stream is still metered', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    withoutStage(doc, 'sse-relay');
  });
  const id = 'meter-piped';
  const res = await postJson(`${gw.url}/v1/chat/completions`, chat({ stream: true }), gw.key, {
    'x-request-id': id,
  });
  t.equal(res.status, 200);
  const records = await recordOf(gw, id);
  t.equal(records.length, 1, 'one record');
  t.ok(records[0]!.total_tokens > 0 || records[0]!.estimated, 'not billed as an exact zero');
});

t.test('a client that leaves before the first byte: the prompt estimate, marked estimated', async (t) => {
  const gw = await startTestGateway(t);
  const cases = [
    { path: '/v1/chat/completions', body: chat(), headers: {} },
    { path: '/v1/chat/completions', body: chat({ stream: true }), headers: {} },
    {
      path: '/v1/messages',
      body: {
        model: 'modeld-sonnet-4-6',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'How many tokens is this?' }],
      },
      headers: { 'modeld-version': '2023-06-01' },
    },
    {
      path: '/v1/images/generations',
      body: { model: 'modelb-3.1-flash-image-preview', prompt: 'a lighthouse at dusk, in oils' },
      headers: {},
    },
  ];
  for (const [i, c] of cases.entries()) {
    const id = `meter-gone-early-${i}`;
    const req = request(`${gw.url}${c.path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${gw.key}`,
        'x-request-id': id,
        'x-sim-latency-ms': '5000',
        ...c.headers,
      },
    });
    req.on('error', () => undefined); // destroyed on purpose
    req.end(JSON.stringify(c.body));
    await eventually(() => gw.sim.log.list(id).length > 0);
    req.destroy();
    const records = await recordOf(gw, id);
    t.equal(records.length, 1, `${c.path}: one record`);
    t.match(records[0], { outcome: 'client_closed', estimated: true, completion_tokens: 0 }, c.path);
    t.ok(records[0]!.prompt_tokens > 0, `${c.path}: the prompt the upstream received is estimated, not zero`);
  }
});

t.test(
  'usage that cannot be written: new billable calls get 503 once the queue is full; calls under way are still recorded',
  { skip: existsSync('/dev/full') ? false : 'no /dev/full here' },
  async (t) => {
    const gate = await upstreamGate(t);
    const gw = await startTestGateway(t, (doc, sim) => {
      const storage = doc.storage as { data_dir: string };
      doc.storage = { ...storage, usage_queue_max: 3 };
      // usage.jsonl on /dev/full: every append fails with ENOSPC, as on a full disk.
      symlinkSync('/dev/full', join(storage.data_dir, 'usage.jsonl'));
      gate.between(doc, sim.url);
    });
    const url = `${gw.url}/v1/chat/completions`;
    const usage = gw.gateway.usage;

    // Held upstream until the queue has filled behind it.
    gate.hold((id) => id === 'backlog-slow');
    const underWay = postJson(url, chat(), gw.key, { 'x-request-id': 'backlog-slow' });
    await until(
      () => gate.waiting,
      (ids) => ids.includes('backlog-slow'),
      { what: 'the slow call admitted (while the queue was empty) and under way upstream' },
    );
    const quick = ['backlog-1', 'backlog-2', 'backlog-3'];
    for (const id of quick)
      t.equal((await postJson(url, chat(), gw.key, { 'x-request-id': id })).status, 200);
    await eventually(() => usage.stats().queued === 3 && usage.stats().failing);
    t.equal(usage.accepting(), false, 'three records wait, their writes failing: the queue is full');

    const refused = await postJson<ErrorBody>(url, chat(), gw.key, { 'x-request-id': 'backlog-refused' });
    t.equal(refused.status, 503, 'a new billable call is refused');
    t.strictSame(Object.keys(refused.body), ['error']);
    t.match(refused.body.error, {
      code: 'usage_backlog',
      message: /^usage cannot be recorded right now/,
      type: 'error',
    });
    t.strictSame(Object.keys(refused.body.error).sort(), ['code', 'message', 'type']);
    t.match(refused.headers.get('retry-after'), /^[1-9]\d*$/, 'with Retry-After in whole seconds');
    t.equal((await getJson(`${gw.url}/v1/models`, gw.key)).status, 200, 'what bills nothing is still served');

    gate.release();
    t.equal((await underWay).status, 200, 'the call under way finished');
    await eventually(() => usage.stats().queued === 4);
    t.pass('and its record was queued past the bound');

    await unlink(join(gw.dataDir, 'usage.jsonl')); // the disk recovers: the next attempt starts a real file
    await usage.flush();
    t.match(usage.stats(), { queued: 0, failing: false });
    t.equal(usage.accepting(), true, 'accepting again');
    for (const id of ['backlog-slow', ...quick])
      t.equal((await usage.list({ id })).length, 1, `${id}: recorded once`);
    t.strictSame(
      await usage.list({ id: 'backlog-refused' }),
      [],
      'the refused call was never made, nor recorded',
    );
    t.equal((await postJson(url, chat(), gw.key)).status, 200, 'new calls are served again');
  },
);
