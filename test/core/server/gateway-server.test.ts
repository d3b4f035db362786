import t from 'tap';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { startTestGateway, type ConfigDoc } from '../../helpers/gateway';
import { isError } from '../../helpers/errors';
import { getJson, postJson, rawExchange, type ErrorBody } from '../../helpers/http';
import { eventually, until } from '../../helpers/wait';
import { LEVEL, recordingLogger } from '../../helpers/logs';
import { receivedRequests } from '../../helpers/server-side';

const chat = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };

t.test('errors the gateway makes have the contract shape and status', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    (doc.server as Record<string, unknown>).body_limit = '2kb';
    (doc.server as Record<string, unknown>).max_headers = 20;
  });
  const url = `${gw.url}/v1/chat/completions`;

  t.test('missing key → 401 unauthorized/unauthorized', async (t) => {
    const res = await postJson<ErrorBody>(url, chat, undefined);
    t.equal(res.status, 401);
    t.strictSame(res.body, { error: { code: 'unauthorized', message: 'unauthorized', type: 'error' } });
    t.equal(res.headers.get('content-type'), 'application/json');
  });

  t.test('invalid key → 401, even with a key-shaped value', async (t) => {
    for (const key of ['nope', `sk-${'A'.repeat(43)}`]) {
      const res = await postJson<ErrorBody>(url, chat, key);
      t.equal(res.status, 401);
      t.strictSame(res.body, { error: { code: 'unauthorized', message: 'unauthorized', type: 'error' } });
    }
  });

  t.test('a disabled key → 403, enabled again → 200', async (t) => {
    const key = await gw.createKey({ description: 'to disable' });
    const id = key.slice(0, 11);
    await gw.gateway.keys.update(id, { enabled: false });
    const res = await postJson<ErrorBody>(url, chat, key);
    t.equal(res.status, 403);
    t.equal(res.body.error.code, 'key_disabled');
    t.equal(res.body.error.type, 'error');
    await gw.gateway.keys.update(id, { enabled: true });
    t.equal((await postJson(url, chat, key)).status, 200);
  });

  t.test('a deleted key stops working at once', async (t) => {
    const key = await gw.createKey();
    t.equal((await postJson(url, chat, key)).status, 200);
    await gw.gateway.keys.delete(key.slice(0, 11));
    t.equal((await postJson(url, chat, key)).status, 401);
  });

  t.test('unknown path → 404, known path with another method → 405 with Allow', async (t) => {
    const missing = await fetch(`${gw.url}/v1/nothing`, { headers: { authorization: `Bearer ${gw.key}` } });
    t.equal(missing.status, 404);
    t.equal(((await missing.json()) as ErrorBody).error.code, 'not_found');
    const wrong = await fetch(url, { headers: { authorization: `Bearer ${gw.key}` } });
    t.equal(wrong.status, 405);
    t.equal(wrong.headers.get('allow'), 'POST');
  });

  t.test('body over the limit → 413 before anything goes upstream', async (t) => {
    gw.sim.log.clear();
    const big = { ...chat, messages: [{ role: 'user', content: 'x'.repeat(4096) }] };
    const res = await postJson<ErrorBody>(url, big, gw.key);
    t.equal(res.status, 413);
    t.equal(res.body.error.code, 'request_too_large');
    t.equal(gw.sim.log.list().length, 0, 'the upstream saw nothing');
  });

  t.test('body over the limit without Content-Length (chunked) → 413', async (t) => {
    const chunks = function* () {
      for (let i = 0; i < 8; i++) yield Buffer.alloc(512, 'a');
    };
    const init = {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: ReadableStream.from(chunks()),
      duplex: 'half' as const, // a streamed body has no Content-Length: the limit is enforced while reading
    };
    const res = await fetch(url, init);
    t.equal(res.status, 413);
  });

  t.test('invalid JSON → 400 invalid_json', async (t) => {
    const res = await postJson<ErrorBody>(url, '{"model":', gw.key);
    t.equal(res.status, 400);
    t.equal(res.body.error.code, 'invalid_json');
  });

  t.test('too many headers → 431', async (t) => {
    const headers: Record<string, string> = { authorization: `Bearer ${gw.key}` };
    for (let i = 0; i < 25; i++) headers[`x-extra-${i}`] = 'v';
    const res = await fetch(`${gw.url}/v1/models`, { headers });
    t.equal(res.status, 431);
  });

  t.test('a body that stops arriving → 408', async (t) => {
    const timed = await startTestGateway(t, (doc) => {
      (doc.server as Record<string, unknown>).timeouts = { body_read: '200ms' };
    });
    const reply = await rawExchange(
      timed.url,
      `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${timed.key}\r\n` +
        'content-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":',
    );
    t.match(reply, /^HTTP\/1\.1 408 /);
    t.match(reply, /"code":"request_timeout"/);
  });

  t.test('headers that never finish → 408 with the contract body', async (t) => {
    const timed = await startTestGateway(t, (doc) => {
      (doc.server as Record<string, unknown>).timeouts = { headers: '300ms' };
    });
    const reply = await rawExchange(timed.url, 'POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nx-slow: ');
    t.match(reply, /^HTTP\/1\.1 408 /);
    t.match(reply, /\r\n\r\n\{"error":\{"code":"request_timeout","message":"[^"]+","type":"error"\}\}$/);
  });

  t.test(
    'headers over max_header_size → 431, a malformed request → 400, both with the contract body',
    async (t) => {
      const big = await rawExchange(
        gw.url,
        `GET /v1/models HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
      );
      t.match(big, /^HTTP\/1\.1 431 /);
      t.match(big, /"code":"request_header_fields_too_large"/);
      const garbage = await rawExchange(gw.url, 'NOT HTTP AT ALL\r\n\r\n');
      t.match(garbage, /^HTTP\/1\.1 400 /);
      t.match(garbage, /"type":"error"/);
    },
  );

  t.test('request id: a sane client id is kept, an insane one replaced', async (t) => {
    const kept = await postJson(url, chat, gw.key, { 'x-request-id': 'client-id-123' });
    t.equal(kept.headers.get('x-request-id'), 'client-id-123');
    const replaced = await postJson(url, chat, gw.key, { 'x-request-id': 'bad id with spaces' });
    t.match(replaced.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
    const error = await postJson(url, chat, undefined, { 'x-request-id': 'err-1' });
    t.equal(error.headers.get('x-request-id'), 'err-1', 'errors carry it too');
    const upstream = gw.sim.log.list('client-id-123');
    t.equal(upstream.length, 1, 'the upstream received the same id');
  });
});

void t.test('a malformed percent-escape in a task URL is a logged 400, not a 500', async (t) => {
  const { logger, lines } = recordingLogger('info');
  const gw = await startTestGateway(t, () => undefined, { logger });
  for (const path of [
    '/v1/videos/generations/%zz',
    '/api/v1/tasks/%',
    '/api/v3/contents/generations/tasks/%E0%A4%A',
  ]) {
    const res = await getJson(`${gw.url}${path}`, gw.key);
    isError(t, res, 400, 'invalid_request', 'percent-escape');
    t.ok(
      lines.some(
        (l) => l.level === LEVEL.info && String(l.path).includes(path.split('/').at(-1)!) && l.status === 400,
      ),
      `${path}: logged`,
    );
  }
  t.notOk(
    lines.some((l) => l.level >= LEVEL.error),
    'no error logged',
  );
});

void t.test('a request body has a deadline however steadily it trickles (408)', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    (doc.server as ConfigDoc).timeouts = { body_read: '5s', body_total: '400ms' };
  });
  const { port } = new URL(gw.url);
  const started = performance.now();
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${gw.key}\r\n` +
          'content-type: application/json\r\ncontent-length: 1000\r\n\r\n{',
      );
      // One byte every 100 ms: never idle for long, never done.
      const trickle = setInterval(() => socket.write(' '), 100);
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.on('close', () => {
        clearInterval(trickle);
        resolve(text);
      });
      socket.on('error', reject);
    });
  });
  const elapsed = performance.now() - started;
  t.match(answer, /^HTTP\/1\.1 408 /, '408');
  t.match(answer, /"code":"request_timeout"/);
  t.match(answer, /within 0\.4 s/);
  t.ok(elapsed >= 350 && elapsed < 3_000, `after the deadline (${Math.round(elapsed)} ms)`);
});

void t.test(
  'a client that goes away while its body is read is logged at info, not as an error',
  async (t) => {
    const { logger, lines } = recordingLogger('info');
    const gw = await startTestGateway(t, () => undefined, { logger });
    const received = receivedRequests(t);
    const { port } = new URL(gw.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined); // destroyed on purpose below
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${gw.key}\r\n` +
        'x-request-id: gone-while-read\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":',
    );
    // The client leaves once the gateway reads its body (its reader consumes the request), not before.
    const request = await received('gone-while-read');
    await until(
      () => request.readableFlowing,
      (flowing) => flowing === true,
      { what: 'the gateway reading the body' },
    );
    socket.destroy();
    await eventually(() => lines.some((l) => l.code === 'client_closed_request'));
    t.ok(
      lines.some((l) => l.code === 'client_closed_request' && l.level === LEVEL.info),
      'a client event, at info',
    );
    t.notOk(
      lines.some((l) => l.level >= LEVEL.error),
      'nothing logged as an error',
    );
  },
);
