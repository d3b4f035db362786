/**
 * Fallbacks, retries and ejection end to end: the official `openai` client against a real gateway, a
 * primary simulator made to fail (503, 429, hanging, refusing connections, cutting a stream) and a
 * second simulator as the fallback upstream.
 */
import t, { type Test } from 'tap';
import OpenAI from 'openai';
import { startTestGateway, withModelaBackup, type ConfigDoc, type TestGateway } from '../helpers/gateway';
import { fakeClock } from '../helpers/clock';
import { refusedUrl } from '../helpers/ports';
import { startSimulator, type RunningSimulator } from '../../simulator/server';

interface Pair extends TestGateway {
  readonly backup: RunningSimulator;
  readonly client: OpenAI;
}

const CHAT = { model: 'modela-5.5', messages: [{ role: 'user' as const, content: 'hi #sim tokens=3' }] };

/** A gateway whose modela-5.5 goes to the first simulator and falls back to a second one. */
async function startPair(t: Test, adjust: (doc: ConfigDoc) => void = () => undefined): Promise<Pair> {
  const backup = await startSimulator();
  t.teardown(() => backup.close());
  const gw = await startTestGateway(t, (doc) => {
    withModelaBackup(doc, backup.url);
    doc.resilience = { ejection: { consecutive_failures: 5, base: '300ms', max: '5s' } };
    adjust(doc);
  });
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  return { ...gw, backup, client };
}

const hits = (sim: RunningSimulator): number =>
  sim.log.list().filter((r) => r.path.includes('/chat/')).length;

async function lastRecord(gw: TestGateway) {
  const [record] = await gw.gateway.usage.list({ key_id: gw.key.slice(0, 11), limit: 1 });
  return record;
}

t.test('a primary answering 503 or 429: the answer comes from the fallback, metered on it', async (t) => {
  const gw = await startPair(t);
  for (const status of [503, 429]) {
    gw.sim.faults.add({ match: { path_prefix: '/modela/' }, fault: { status }, times: 1 });
    const completion = await gw.client.chat.completions.create(CHAT);
    t.equal(completion.choices[0]?.message.content?.split(' ').length, 3, `after ${status}`);
    const record = await lastRecord(gw);
    t.equal(record?.upstream, 'modela-backup', 'the usage record names the upstream that served');
    t.equal(record?.model, 'modela-5.5');
  }
  t.equal(hits(gw.sim), 2, 'the primary was tried each time');
  t.equal(hits(gw.backup), 2);
  const admin = await fetch(`${gw.gateway.adminUrl}/admin/upstreams`, {
    headers: { authorization: `Bearer ${gw.gateway.adminToken}` },
  });
  const { data } = (await admin.json()) as { data: Record<string, Record<string, unknown>> };
  t.match(data['modela-main'], { consecutive_failures: 2, retries_from: 2, ejected_until: null });
  t.match(data['modela-backup'], { retries_to: 2 });
});

t.test('a primary that hangs past its response timeout: the fallback answers', async (t) => {
  const gw = await startPair(t, (doc) => {
    const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
    upstreams['modela-main']!.timeouts = { response: '300ms' };
  });
  gw.sim.faults.add({ fault: { hang: true } });
  const started = Date.now();
  const completion = await gw.client.chat.completions.create(CHAT);
  t.ok(completion.choices[0]?.message.content);
  // Ended by the 300 ms timeout, not the default 60 s: with room for a stall of two seconds.
  t.ok(Date.now() - started < 3_000);
  t.equal((await lastRecord(gw))?.upstream, 'modela-backup');
});

t.test('a primary refusing connections: the fallback answers', async (t) => {
  const gw = await startPair(t, (doc) => {
    const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
    upstreams['modela-main']!.base_url = refusedUrl('/modela/v1');
  });
  const completion = await gw.client.chat.completions.create(CHAT);
  t.ok(completion.choices[0]?.message.content);
  t.equal((await lastRecord(gw))?.upstream, 'modela-backup');
});

t.test('a primary resetting the connection before its headers: the fallback answers', async (t) => {
  const gw = await startPair(t);
  gw.sim.faults.add({ fault: { reset: true }, times: 1 });
  const completion = await gw.client.chat.completions.create(CHAT);
  t.ok(completion.choices[0]?.message.content);
  t.equal(hits(gw.backup), 1);
});

t.test('a kept-alive connection closed as the request went out: sent again, not a failure', async (t) => {
  const gw = await startPair(t);
  await gw.client.chat.completions.create(CHAT); // leaves a kept-alive connection to the primary
  gw.sim.faults.add({ fault: { reset: true }, times: 1 }); // the next request on it is reset
  const completion = await gw.client.chat.completions.create(CHAT);
  t.ok(completion.choices[0]?.message.content);
  t.equal(hits(gw.backup), 0, 'no fallback: the primary answered on a new connection');
  t.equal((await lastRecord(gw))?.upstream, 'modela-main');
  const admin = await fetch(`${gw.gateway.adminUrl}/admin/upstreams`, {
    headers: { authorization: `Bearer ${gw.gateway.adminToken}` },
  });
  const { data } = (await admin.json()) as { data: Record<string, Record<string, unknown>> };
  t.match(data['modela-main'], { consecutive_failures: 0, retries_from: 0 }, 'not counted against it');
});

t.test('a stream whose primary answers 503: the fallback streams it, as the client asked', async (t) => {
  const gw = await startPair(t);
  gw.sim.faults.add({ match: { path_prefix: '/modela/' }, fault: { status: 503 }, times: 1 });
  const stream = await gw.client.chat.completions.create({
    ...CHAT,
    // Renamed for the upstream (max_completion_tokens), and usage asked of it: the fallback's body is
    // made from the client's as sent, not from the first attempt's.
    max_tokens: 50,
    messages: [{ role: 'user', content: 'hi #sim tokens=5' }],
    stream: true,
  });
  let text = '';
  let usageChunks = 0;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    if (chunk.usage) usageChunks++;
  }
  t.equal(text.trim().split(/\s+/).length, 5, 'the whole answer, from the fallback');
  t.equal(usageChunks, 0, 'no usage chunk the client did not ask for');
  const [sent] = gw.backup.log.list().filter((r) => r.path.includes('/chat/'));
  t.match(sent?.body, {
    model: 'modela-5.5',
    max_completion_tokens: 50,
    stream_options: { include_usage: true },
  });
  t.notOk(sent && 'max_tokens' in (sent.body as object), 'renamed on the fallback as on the primary');
  const record = await lastRecord(gw);
  t.match(record, { upstream: 'modela-backup', completion_tokens: 5, estimated: false });
});

t.test('a stream cut after its first bytes: an error event, and no retry', async (t) => {
  const gw = await startPair(t);
  gw.sim.faults.add({ fault: { cut_after: 2 } });
  const stream = await gw.client.chat.completions.create({
    ...CHAT,
    messages: [{ role: 'user', content: 'hi #sim tokens=20' }],
    stream: true,
  });
  let received = 0;
  const consume = async () => {
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) received++;
  };
  await t.rejects(consume(), /ended the stream before it was complete/);
  t.ok(received > 0, 'the client had bytes of the answer');
  t.equal(hits(gw.backup), 0, 'the fallback never saw the request');
});

t.test('five failures eject the primary; it returns after the cooldown', async (t) => {
  const gw = await startPair(t);
  // The cooldown (base 300ms) on a fake clock: no stall of a slow machine can end it early or late.
  const clock = fakeClock(t, Date.now());
  gw.sim.faults.add({ fault: { status: 503 } });
  for (let i = 0; i < 5; i++) await gw.client.chat.completions.create(CHAT);
  t.equal(hits(gw.sim), 5);
  await gw.client.chat.completions.create(CHAT);
  t.equal(hits(gw.sim), 5, 'the sixth request does not reach the ejected primary');
  t.equal(hits(gw.backup), 6);
  gw.sim.faults.clear();
  await clock.tickAsync(350);
  await gw.client.chat.completions.create(CHAT);
  t.equal(hits(gw.sim), 6, 'back in service after base');
  t.equal((await lastRecord(gw))?.upstream, 'modela-main');
});

t.test('every upstream ejected: 503 upstream_unavailable with Retry-After', async (t) => {
  const gw = await startPair(t);
  // On a fake clock, still: both stay out for their whole base (300ms) however slow the machine.
  fakeClock(t, Date.now());
  gw.sim.faults.add({ fault: { status: 503 } });
  gw.backup.faults.add({ fault: { status: 503 } });
  for (let i = 0; i < 5; i++) {
    const failed = await gw.client.chat.completions.create(CHAT).catch((e: unknown) => e);
    t.ok(failed instanceof OpenAI.InternalServerError, 'the fallback failure is delivered');
  }
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(CHAT),
  });
  t.equal(res.status, 503);
  t.equal(res.headers.get('retry-after'), '1');
  t.strictSame(
    ((await res.json()) as { error: { code: string; type: string } }).error.code,
    'upstream_unavailable',
  );
  t.equal(hits(gw.sim), 5);
  t.equal(hits(gw.backup), 5);
});

t.test('a spent retry budget: the failure is delivered as it came, without retry', async (t) => {
  const gw = await startPair(t, (doc) => {
    doc.resilience = { retry_budget: { percent: 0, min: 0 } };
  });
  gw.sim.faults.add({ fault: { status: 503 }, times: 1 });
  const failed = await gw.client.chat.completions.create(CHAT).catch((e: unknown) => e);
  t.ok(failed instanceof OpenAI.InternalServerError);
  t.equal((failed as InstanceType<typeof OpenAI.APIError>).status, 503);
  t.equal(hits(gw.backup), 0);
});
