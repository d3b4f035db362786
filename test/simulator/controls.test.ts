import t from 'tap';
import { fakeClock } from '../helpers/clock';
import { readControls } from '../../simulator/controls';
import { startSimulator } from '../../simulator/server';
import { SimError } from '../../simulator/sim-error';
import {
  chat,
  errorShape,
  FAMILY_NAMES,
  onClock,
  readSse,
  streamedText,
  user,
  type Completion,
} from './helpers';

/** The status of the SimError `fn` throws; 0 when it does not throw. */
function thrownStatus(fn: () => unknown): number {
  try {
    fn();
    return 0;
  } catch (err) {
    return err instanceof SimError ? err.status : -1;
  }
}

void t.test('readControls', (t) => {
  t.strictSame(readControls({}, 'plain prompt'), {}, 'no marker, no controls');
  t.strictSame(readControls({}, 'hello #sim tokens=3 latency_ms=50 echo'), {
    tokens: 3,
    latencyMs: 50,
    echo: true,
  });
  t.strictSame(
    readControls({ 'x-sim-tokens': '7' }, 'hi #sim tokens=3 tps=2.5'),
    { tokens: 7, tps: 2.5 },
    'header wins',
  );
  t.strictSame(
    readControls({}, 'a #sim cut_after=2\nmore prose=here'),
    { cutAfter: 2 },
    'directive ends at its line',
  );
  t.strictSame(readControls({}, 'we #simulate nothing'), {}, '#simulate is prose');
  t.strictSame(readControls({ 'x-sim-echo': 'false' }, '#sim echo'), { echo: false });
  t.strictSame(readControls({}, 'draw #sim usage=0'), { usage: false }, 'usage is a flag');
  t.strictSame(readControls({ 'x-sim-usage': 'yes' }, '#sim usage=0'), { usage: true });
  t.equal(
    thrownStatus(() => readControls({}, '#sim tokenz=3')),
    400,
    'unknown directive',
  );
  t.equal(
    thrownStatus(() => readControls({ 'x-sim-status': '200' }, '')),
    400,
    'status must be an error status',
  );
  t.equal(
    thrownStatus(() => readControls({ 'x-sim-latency-ms': '-1' }, '')),
    400,
    'no negative latency',
  );
  t.end();
});

void t.test('controls over HTTP', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const streamBody = (prompt: string, extra: object = {}): object => ({
    model: 'm',
    stream: true,
    messages: user(prompt),
    ...extra,
  });

  await t.test('latency delays the response headers', async (t) => {
    for (const [headers, prompt] of [
      [{ 'x-sim-latency-ms': '120' }, 'hi'],
      [{}, 'hi #sim latency_ms=120'],
    ] as const) {
      const started = Date.now();
      const res = await chat(sim, 'modela', { model: 'm', messages: user(prompt) }, headers);
      t.ok(Date.now() - started >= 110, `waited ${Date.now() - started}ms`);
      t.equal(res.status, 200);
      await res.arrayBuffer();
    }
  });

  await t.test('tps paces content chunks', async (t) => {
    const started = Date.now();
    const { events, done } = await readSse(await chat(sim, 'modela', streamBody('#sim tokens=5 tps=50')));
    // The fifth content chunk is due 4 × 20 ms after the first, which cannot precede the request.
    const elapsed = Date.now() - started;
    t.ok(done);
    t.equal(streamedText(events)[0], 'Lorem ipsum dolor sit amet');
    t.ok(elapsed >= 75, `stream took ${elapsed}ms`);
  });

  await t.test('status answers with the family error body', async (t) => {
    for (const family of FAMILY_NAMES) {
      for (const status of [400, 401, 403, 404, 429, 500, 503]) {
        const res = await chat(sim, family, streamBody('hi'), { 'x-sim-status': String(status) });
        t.equal(res.status, status, `${family} ${status}`);
        t.equal(res.headers.get('retry-after'), status === 429 ? '1' : null);
        t.match(res.headers.get('content-type'), 'application/json', 'an error before the stream is JSON');
        t.match(await res.json(), errorShape(family, status), `${family} ${status} shape`);
      }
    }
    const fromPrompt = await chat(sim, 'modelb', { model: 'm', messages: user('x #sim status=429') });
    t.match(await fromPrompt.json(), { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
  });

  await t.test('cut_after destroys the connection without [DONE]', async (t) => {
    const { events, done, error } = await readSse(
      await chat(sim, 'modela', streamBody('#sim tokens=5 cut_after=2')),
    );
    t.notOk(done);
    t.ok(error, 'the body ends in an error');
    t.equal(events.length, 3, 'role chunk and two content chunks');
    t.equal(streamedText(events)[0], 'Lorem ipsum');
    const longer = await readSse(
      await chat(sim, 'modelc', streamBody('hi'), { 'x-sim-cut-after': '50', 'x-sim-tokens': '2' }),
    );
    t.notOk(longer.done, 'a cut beyond the stream still cuts, in place of [DONE]');
    t.ok(longer.error);
    const entry = sim.log.list().at(-1);
    t.match(entry, { finished: false, aborted: false }, 'a cut by the simulator is not a client abort');
  });

  await t.test('error_after sends an in-stream error event and ends cleanly without [DONE]', async (t) => {
    const shapes = {
      modela: { type: 'server_error' },
      modelb: { code: 500, status: 'INTERNAL' },
      modelc: { code: 'internal_error' },
    };
    for (const family of FAMILY_NAMES) {
      const { events, done, error } = await readSse(
        await chat(sim, family, streamBody('#sim tokens=5 error_after=2')),
      );
      t.notOk(done, family);
      t.equal(error, null, `${family} ends cleanly`);
      t.equal(events.length, 4, family);
      t.match(events.at(-1), { error: { message: String, ...shapes[family] } }, family);
    }
  });

  await t.test('silence_ms pauses after the first content chunk', async (t) => {
    // Time is the subject: the pause runs on a fake clock (see onClock), so no stall of the reader
    // after the first chunk can shorten the gap it sees.
    const clock = fakeClock(t);
    const { times, done } = await onClock(
      clock,
      chat(sim, 'modela', streamBody('#sim tokens=3 silence_ms=150')).then(readSse),
    );
    t.ok(done);
    const gap = (times[2] ?? 0) - (times[1] ?? 0);
    t.ok(gap >= 130, `gap of ${gap}ms after the first content chunk`);
  });

  await t.test('echo returns the headers and body as received', async (t) => {
    const sent = { model: 'm', messages: user('hi'), temperature: 0.5, extra_body: { google: { x: 1 } } };
    const res = await chat(sim, 'modelb', sent, { 'x-sim-echo': '1', 'x-trace': 'abc' });
    const body = (await res.json()) as Completion;
    const echoed = JSON.parse(body.choices[0]?.message?.content ?? '') as {
      headers: Record<string, string>;
      body: unknown;
    };
    t.strictSame(echoed.body, sent);
    t.match(echoed.headers, { authorization: 'Bearer sim-modelb-key', 'x-trace': 'abc' });

    const streamed = await readSse(await chat(sim, 'modelc', streamBody('hi #sim echo', { n: 2 })));
    const texts = streamedText(streamed.events);
    t.equal(texts.length, 2);
    for (const text of texts) t.match(JSON.parse(text), { body: { messages: user('hi #sim echo') } });
    t.ok(streamed.done);
  });

  await t.test('invalid control values are rejected in the family shape', async (t) => {
    const res = await chat(sim, 'modelc', { model: 'm', messages: user('hi') }, { 'x-sim-tokens': 'lots' });
    t.equal(res.status, 400);
    t.match(await res.json(), errorShape('modelc', 400));
    const directive = await chat(sim, 'modela', { model: 'm', messages: user('hi #sim tokenz=3') });
    t.equal(directive.status, 400);
    t.match(await directive.json(), { error: { message: /tokenz/ } });
  });
});
