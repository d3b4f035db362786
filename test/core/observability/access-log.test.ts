/**
 * The access log: exactly one line per request, whatever its outcome (200, 400, 401, 403, 404, 405, 429,
 * an upstream's 500, a client that left, a stream, a request Node could not parse), with its key's id
 * and never the key.
 */
import { request } from 'node:http';
import t from 'tap';
import { startTestGateway } from '../../helpers/gateway';
import { openStream, postJson, rawExchange } from '../../helpers/http';
import { eventually, until } from '../../helpers/wait';
import { LEVEL, recordingLogger, type LogLine } from '../../helpers/logs';

const chat = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };

const accessLines = (lines: readonly LogLine[], id: string): LogLine[] =>
  lines.filter((l) => l.msg === 'request' && l.request_id === id);

void t.test('one access line per request, whatever its outcome', async (t) => {
  const { logger, lines } = recordingLogger('info');
  const gw = await startTestGateway(t, () => undefined, { logger });
  const url = `${gw.url}/v1/chat/completions`;
  const oneAMinute = await gw.createKey({ rate_limit_rpm: 1 });
  const narrow = await gw.createKey({ allowed_models: ['modelc-*'] });
  const keyId = (await gw.gateway.keys.list()).find((k) => k.allowed_models.length === 0)?.id;

  const cases: { id: string; send: () => Promise<unknown>; expect: Record<string, unknown> }[] = [
    {
      id: 'ok-1',
      send: () => postJson(url, chat, gw.key, { 'x-request-id': 'ok-1' }),
      expect: { status: 200, outcome: 'ok', model: 'modela-5.5', upstream: 'modela-main', method: 'POST' },
    },
    {
      id: 'bad-json-1',
      send: () => postJson(url, '{"model":', gw.key, { 'x-request-id': 'bad-json-1' }),
      expect: { status: 400, code: 'invalid_json', outcome: 'refused' },
    },
    {
      id: 'no-key-1',
      send: () => postJson(url, chat, undefined, { 'x-request-id': 'no-key-1' }),
      expect: { status: 401, code: 'unauthorized' },
    },
    {
      id: 'narrow-1',
      send: () => postJson(url, chat, narrow, { 'x-request-id': 'narrow-1' }),
      expect: { status: 403, code: 'model_not_allowed' },
    },
    {
      id: 'no-model-1',
      send: () => postJson(url, { ...chat, model: 'nope' }, gw.key, { 'x-request-id': 'no-model-1' }),
      expect: { status: 404, code: 'model_not_found' },
    },
    {
      id: 'no-path-1',
      send: () => postJson(`${gw.url}/v1/nothing?secret=x`, chat, gw.key, { 'x-request-id': 'no-path-1' }),
      expect: { status: 404, code: 'not_found', path: '/v1/nothing', outcome: 'refused' },
    },
    {
      id: 'method-1',
      send: () => fetch(url, { headers: { 'x-request-id': 'method-1' } }),
      expect: { status: 405, code: 'method_not_allowed', method: 'GET', outcome: 'refused' },
    },
    {
      id: 'limit-1',
      send: () => postJson(url, chat, oneAMinute, { 'x-request-id': 'limit-1' }),
      expect: { status: 200 },
    },
    {
      id: 'limit-2',
      send: () => postJson(url, chat, oneAMinute, { 'x-request-id': 'limit-2' }),
      expect: { status: 429, code: 'rate_limited', outcome: 'refused' },
    },
    {
      id: 'upstream-500',
      send: () => postJson(url, chat, gw.key, { 'x-request-id': 'upstream-500', 'x-sim-status': '500' }),
      expect: { status: 500, upstream: 'modela-main', outcome: 'vendor_error' },
    },
    {
      id: 'stream-1',
      send: async () => {
        const res = await openStream(url, { ...chat, stream: true }, gw.key, { 'x-request-id': 'stream-1' });
        await new Promise((resolve) => res.on('end', resolve).resume());
      },
      expect: { status: 200, outcome: 'ok', upstream: 'modela-main' },
    },
  ];
  for (const c of cases) await c.send();

  // A client that leaves while the upstream thinks: nothing was answered. It leaves once the upstream has
  // the request, long before the upstream's ten seconds are up.
  const gone = request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${gw.key}`,
      'x-request-id': 'gone-1',
      'x-sim-latency-ms': '10000',
    },
  });
  gone.on('error', () => undefined); // destroyed on purpose
  gone.end(JSON.stringify(chat));
  await until(
    () => gw.sim.log.list('gone-1').length,
    (n) => n > 0,
    { what: 'the upstream receiving gone-1' },
  );
  gone.destroy();
  await eventually(() => accessLines(lines, 'gone-1').length > 0);

  // Headers too large: Node refuses the request before the handler; it is logged all the same.
  const huge = await rawExchange(
    gw.url,
    `GET /v1/models?x=1 HTTP/1.1\r\nhost: x\r\nx-request-id: huge-1\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
  );
  t.match(huge, /^HTTP\/1\.1 431 /);
  await eventually(() => accessLines(lines, 'huge-1').length > 0);

  // A closed gateway has no request in flight: every request it took has been logged, so a late or
  // second line would be here by now.
  await gw.gateway.close();
  for (const c of cases) {
    const mine = accessLines(lines, c.id);
    t.equal(mine.length, 1, `${c.id}: one line`);
    t.match(mine[0], { level: LEVEL.info, ...c.expect }, `${c.id}: ${JSON.stringify(c.expect)}`);
  }
  const ok = accessLines(lines, 'ok-1')[0]!;
  t.equal(ok.key_id, keyId, 'the key by its id');
  t.equal(ok.path, '/v1/chat/completions');
  t.ok(Number(ok.bytes_in) > 0 && Number(ok.bytes_out) > 0, 'bytes in and out');
  t.ok(Number(ok.prompt_tokens) > 0 && Number(ok.completion_tokens) > 0, 'tokens');
  t.ok(Number(ok.upstream_ms) > 0, 'upstream time');
  // Each is rounded to a tenth of a millisecond on its own, so the sum may differ by one tenth.
  const split = Number(ok.gateway_ms) + Number(ok.upstream_ms) - Number(ok.duration_ms);
  t.ok(Math.abs(split) <= 0.10001, `gateway + upstream = duration (off by ${split})`);
  t.notOk('key_id' in accessLines(lines, 'no-key-1')[0]!, 'no key, no key id');

  const left = accessLines(lines, 'gone-1');
  t.equal(left.length, 1, 'the client that left: one line');
  t.match(left[0], { status: 499, outcome: 'client_closed', upstream: 'modela-main' });

  const refused = accessLines(lines, 'huge-1');
  t.equal(refused.length, 1, 'the refused headers: one line');
  t.match(refused[0], {
    status: 431,
    method: 'GET',
    path: '/v1/models',
    code: 'request_header_fields_too_large',
  });

  const requests = lines.filter((l) => l.msg === 'request');
  t.equal(new Set(requests.map((l) => l.request_id)).size, requests.length, 'no request logged twice');
  t.equal(requests.length, cases.length + 2, 'and no other request line');

  const everything = JSON.stringify(lines);
  for (const secret of [gw.key, oneAMinute, narrow])
    t.notOk(everything.includes(secret), 'a key is never printed');
  t.notOk(everything.includes(gw.key.slice(12)), 'nor a part of it beyond its id');
});

void t.test('logging.access: false turns it off', async (t) => {
  const { logger, lines } = recordingLogger('info');
  const gw = await startTestGateway(
    t,
    (doc) => {
      doc.logging = { level: 'info', access: false };
    },
    { logger },
  );
  t.equal((await postJson(`${gw.url}/v1/chat/completions`, chat, gw.key)).status, 200);
  t.equal((await postJson(`${gw.url}/v1/chat/completions`, chat, undefined)).status, 401);
  t.equal(lines.filter((l) => l.msg === 'request').length, 0);
  t.ok(
    lines.some((l) => l.code === 'unauthorized' && l.level === LEVEL.info),
    'a refusal is still logged as before',
  );
});
