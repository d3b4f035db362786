/**
 * The `reply` fault: a test's canned answer served byte for byte, matched like the other faults (path,
 * model, times), an event stream in many small writes, and refused with a 400 naming the bad field.
 */
import t from 'tap';
import { startSimulator } from '../../simulator/server';
import { chat, user } from './helpers';

/** POSTs a fault over HTTP, as a test in another process would. */
async function addFault(url: string, spec: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/_sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(spec),
  });
  return { status: res.status, body: await res.json() };
}

/** The body as read, and how many reads it took. */
async function readAll(res: Response): Promise<{ bytes: Buffer; reads: number }> {
  const parts: Buffer[] = [];
  for await (const chunk of (res.body ?? []) as AsyncIterable<Uint8Array>) parts.push(Buffer.from(chunk));
  return { bytes: Buffer.concat(parts), reads: parts.length };
}

void t.test('reply fault', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  t.afterEach(() => void sim.faults.clear());

  await t.test('answers the canned status, type and body, before route and key checks', async (t) => {
    const body = '{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"x"}}';
    const added = await addFault(sim.url, {
      match: { path_prefix: '/newvendor/' },
      fault: { reply: { status: 429, body, headers: { 'retry-after': '7' } } },
    });
    t.equal(added.status, 200);
    const res = await fetch(`${sim.url}/newvendor/v1/chat`, { method: 'POST', body: '{}' });
    t.equal(res.status, 429, 'no family is mounted there, and no key was sent');
    t.equal(res.headers.get('content-type'), 'application/json', 'the default content type');
    t.equal(res.headers.get('retry-after'), '7');
    t.equal(res.headers.get('content-length'), String(Buffer.byteLength(body)));
    t.equal(await res.text(), body, 'byte for byte');
  });

  await t.test('an event stream arrives whole, in many reads', async (t) => {
    // Multi-byte characters and an event without a trailing blank line, as recordings have.
    const events = Array.from({ length: 20 }, (_, i) => `data: {"text":"温度 — ${i}"}\n\n`);
    const stream = `${events.join('')}data: [DONE]`;
    sim.faults.add({ fault: { reply: { content_type: 'text/event-stream', body: stream } } });
    const res = await chat(sim, 'modela', { model: 'm', stream: true, messages: user('hi') });
    t.equal(res.status, 200);
    t.equal(res.headers.get('content-type'), 'text/event-stream');
    t.equal(res.headers.get('x-request-id')?.length !== 0, true, "the family's request id header");
    const { bytes, reads } = await readAll(res);
    t.equal(bytes.toString('utf8'), stream);
    t.ok(reads > 20, `written in small pieces (${reads} reads)`);
  });

  await t.test('body_base64 carries bytes that are not text', async (t) => {
    const bytes = Buffer.from([0xff, 0x00, 0xfe, 0x41]);
    sim.faults.add({
      fault: { reply: { content_type: 'image/png', body_base64: bytes.toString('base64') } },
    });
    const res = await fetch(`${sim.url}/anything`);
    t.strictSame(Buffer.from(await res.arrayBuffer()), bytes);
  });

  await t.test('matched by path and model, for `times` requests, then the family answers', async (t) => {
    sim.faults.add({
      match: { path_prefix: '/modelc/', model: 'canned' },
      fault: { reply: { body: '{"canned":true}' } },
      times: 2,
    });
    const ask = (model: string) => chat(sim, 'modelc', { model, messages: user('hi') });
    const other = await ask('other');
    t.notOk(((await other.json()) as Record<string, unknown>).canned, 'another model: the family answers');
    for (let i = 0; i < 2; i++) t.strictSame(await (await ask('canned')).json(), { canned: true });
    t.strictSame(sim.faults.all(), [], 'spent after two');
    const after = (await (await ask('canned')).json()) as Record<string, unknown>;
    t.equal(after.object, 'chat.completion', 'then the family answers again');
  });

  await t.test('GET /_sim/faults lists a reply with its hits', async (t) => {
    sim.faults.add({ match: { path_prefix: '/x/' }, fault: { reply: { body: 'ok' } } });
    await (await fetch(`${sim.url}/x/1`)).text();
    const listed = (await (await fetch(`${sim.url}/_sim/faults`)).json()) as { faults: unknown[] };
    t.match(listed.faults, [{ match: { path_prefix: '/x/' }, fault: { reply: { body: 'ok' } }, hits: 1 }]);
  });

  await t.test('a bad reply is refused naming the field', async (t) => {
    const cases: [unknown, string][] = [
      [{ status: 199 }, 'fault.reply.status'],
      [{ status: 200.5 }, 'fault.reply.status'],
      [{ content_type: '' }, 'fault.reply.content_type'],
      [{ body: 3 }, 'fault.reply.body'],
      [{ body_base64: 'not base64!' }, 'fault.reply.body_base64'],
      [{ body: 'a', body_base64: 'YQ==' }, 'one of body and body_base64'],
      [{ headers: { 'bad name': 'x' } }, 'fault.reply.headers'],
      [{ headers: { ok: 1 } }, 'fault.reply.headers'],
      ['text', 'fault.reply'],
    ];
    for (const [reply, field] of cases) {
      const res = await addFault(sim.url, { fault: { reply } });
      t.equal(res.status, 400, JSON.stringify(reply));
      t.match(res.body, { error: field });
    }
    const both = await addFault(sim.url, { fault: { reply: {}, status: 500 } });
    t.match(both, { status: 400, body: { error: 'cannot be combined' } });
    t.strictSame(sim.faults.all(), [], 'nothing was added');
  });

  await t.test('delay_ms answers late, alone or before a reply; method narrows the match', async (t) => {
    for (const delay_ms of [-1, 600_001, 1.5, '10']) {
      const res = await addFault(sim.url, { fault: { delay_ms } });
      t.match(res, { status: 400, body: { error: 'fault.delay_ms' } }, JSON.stringify(delay_ms));
    }
    const res = await addFault(sim.url, {
      match: { path_prefix: '/x/', method: 'get' },
      fault: { delay_ms: 200, reply: { body: 'late' } },
    });
    t.match(res, { status: 200, body: { match: { method: 'GET' }, fault: { delay_ms: 200 } } });
    const post = await fetch(`${sim.url}/x/1`, { method: 'POST', body: '{}' });
    t.equal(post.status, 404, 'a POST is not matched');
    const started = Date.now();
    t.equal(await (await fetch(`${sim.url}/x/1`)).text(), 'late');
    // "Not before": the delay is the subject, so the elapsed time is what is checked.
    t.ok(Date.now() - started >= 200, `answered after ${Date.now() - started} ms`);
  });
});
