import { request } from 'node:http';
import t from 'tap';
import { fakeClock } from '../helpers/clock';
import { RequestLog, type LoggedRequest } from '../../simulator/request-log';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { chat, FAMILIES, readSse, untilDefined, user } from './helpers';

/** Opens a modela stream over node:http and destroys it once the first bytes of the body arrive. */
function abandonStream(sim: RunningSimulator, requestId: string, prompt: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${sim.url}${FAMILIES.modela.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FAMILIES.modela.key}`, 'x-request-id': requestId },
    });
    req.on('response', (res) => res.once('data', () => resolve(void req.destroy())));
    req.on('error', reject);
    req.end(JSON.stringify({ model: 'm', stream: true, messages: user(prompt) }));
  });
}

const entry = (sim: RunningSimulator, requestId: string): LoggedRequest | undefined =>
  sim.log.list(requestId)[0];

void t.test('RequestLog keeps the last entries in order', (t) => {
  const log = new RequestLog(3);
  const fake = (id: string): LoggedRequest => ({
    id,
    request_id: id,
    method: 'GET',
    path: '/',
    headers: {},
    body: null,
    received_at: new Date().toISOString(),
    finished: false,
    aborted: false,
    status: null,
  });
  for (const id of ['a', 'b', 'c', 'd']) log.add(fake(id));
  t.strictSame(
    log.list().map((e) => e.request_id),
    ['b', 'c', 'd'],
  );
  t.equal(log.list('c').length, 1);
  t.equal(log.clear(), 3);
  t.equal(log.list().length, 0);
  t.end();
});

void t.test('request log over HTTP', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());

  await t.test('health', async (t) => {
    const res = await fetch(`${sim.url}/_sim/health`);
    t.equal(res.status, 200);
    t.strictSame(await res.json(), { ok: true });
  });

  await t.test('records what was received, filterable by x-request-id', async (t) => {
    await (
      await chat(
        sim,
        'modela',
        { model: 'm', messages: user('one') },
        { 'x-request-id': 'rid-1', 'X-Custom': 'Yes' },
      )
    ).text();
    await (await chat(sim, 'modelb', '{"broken', { 'x-request-id': 'rid-2' })).text();
    const res = await fetch(`${sim.url}/_sim/requests?request_id=rid-1`);
    const { requests } = (await res.json()) as { requests: LoggedRequest[] };
    t.equal(requests.length, 1);
    t.match(requests[0], {
      id: /^req_/,
      request_id: 'rid-1',
      method: 'POST',
      path: FAMILIES.modela.path,
      headers: { 'x-custom': 'Yes', authorization: 'Bearer sim-modela-key' },
      body: { model: 'm', messages: user('one') },
      received_at: String,
      finished: true,
      aborted: false,
      status: 200,
    });
    t.match(entry(sim, 'rid-2'), { body: '{"broken', status: 400 }, 'a body that is not JSON is kept raw');
    const all = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as { requests: LoggedRequest[] };
    t.equal(all.requests.length, 2, '/_sim requests are not logged');
  });

  await t.test('DELETE clears the log', async (t) => {
    const res = await fetch(`${sim.url}/_sim/requests`, { method: 'DELETE' });
    t.equal(res.status, 200);
    t.equal(sim.log.list().length, 0);
  });

  await t.test('a client that hangs up mid-stream marks the request aborted', async (t) => {
    await abandonStream(sim, 'gone-1', '#sim tokens=200 tps=20');
    const logged = await untilDefined(
      () => (entry(sim, 'gone-1')?.aborted ? entry(sim, 'gone-1') : undefined),
      'gone-1 logged as aborted',
    );
    t.match(logged, { aborted: true, finished: false, status: 200 });
  });

  await t.test('a client that hangs up during latency marks the request aborted', async (t) => {
    const controller = new AbortController();
    const aborted = fetch(sim.url + FAMILIES.modela.path, {
      method: 'POST',
      signal: controller.signal,
      headers: { authorization: `Bearer ${FAMILIES.modela.key}`, 'x-request-id': 'gone-3' },
      body: JSON.stringify({ model: 'm', messages: user('#sim latency_ms=5000') }),
    });
    await untilDefined(() => entry(sim, 'gone-3')?.body ?? undefined, 'gone-3 received');
    controller.abort();
    await aborted.catch(() => undefined);
    const logged = await untilDefined(
      () => (entry(sim, 'gone-3')?.aborted ? entry(sim, 'gone-3') : undefined),
      'gone-3 logged as aborted',
    );
    t.match(logged, { aborted: true, status: null });
  });

  await t.test('a complete stream is finished, not aborted', async (t) => {
    const res = await chat(
      sim,
      'modelc',
      { model: 'm', stream: true, messages: user('hi') },
      { 'x-request-id': 'done-1' },
    );
    t.ok((await readSse(res)).done);
    t.match(await untilDefined(() => entry(sim, 'done-1'), 'done-1 logged'), {
      finished: true,
      aborted: false,
    });
  });
});

void t.test('close() ends open streams promptly', async (t) => {
  const sim = await startSimulator();
  const res = await chat(sim, 'modela', {
    model: 'm',
    stream: true,
    messages: user('#sim tokens=1000 tps=1'),
  });
  const reading = readSse(res);
  // Promptly: waiting on no timer. With this process's timers stopped (a timer set before is still
  // cleared for real), close() still resolves; a real timer, set first, bounds the wait should it not.
  const stillOpen = new Promise<string>((resolve) => {
    setTimeout(() => resolve('still open after 10 s'), 10_000).unref();
  });
  fakeClock(t);
  const closed = await Promise.race([sim.close().then(() => 'closed'), stillOpen]);
  t.equal(closed, 'closed', 'closed with the timers stopped');
  const { done, error } = await reading;
  t.notOk(done);
  t.ok(error, 'the client sees the stream break');
});
