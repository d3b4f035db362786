import t from 'tap';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { families } from '../../../simulator/families';
import { SimErrors } from '../../../simulator/sim-error';
import { startTestGateway, type ConfigDoc, type TestGateway } from '../../helpers/gateway';
import { openStream, postJson, type ErrorBody } from '../../helpers/http';
import { eventually } from '../../helpers/wait';

const chat = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

/** One model of each chat family, and the simulator family that answers it. */
const FAMILY_MODELS = [
  { family: 'modela', model: 'modela-5.5' },
  { family: 'modelb', model: 'modelb-3.5-flash' },
  { family: 'modelc', model: 'modelc-3.6-flash' },
] as const;

interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Header names as sent, lower-cased, with repeats: shows a header that was sent twice. */
  readonly names: string[];
  readonly text: string;
}

/** A node:http POST read whole; unlike fetch it shows every header the gateway sent, as sent. */
function rawPost(url: string, body: unknown, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } });
    req.on('error', reject).on('response', (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk)).on('error', reject);
      res.on('end', () => {
        const names = res.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
        resolve({ status: res.statusCode ?? 0, headers: res.headers, names, text });
      });
    });
    req.end(JSON.stringify(body));
  });
}

const upstreamEntry = (gw: TestGateway, id: string) => gw.sim.log.list(id)[0];

t.test('upstream error statuses come back unchanged', async (t) => {
  const gw = await startTestGateway(t);
  const url = `${gw.url}/v1/chat/completions`;

  for (const { family, model } of FAMILY_MODELS) {
    t.test(`${family}: 400, 429, 500, 503 keep status, body and headers`, async (t) => {
      const sim = families.find((f) => f.name === family)!;
      for (const status of [400, 429, 500, 503]) {
        const id = `err-${family}-${status}`;
        const res = await rawPost(url, chat(model), {
          authorization: `Bearer ${gw.key}`,
          'x-request-id': id,
          'x-sim-status': String(status),
        });
        t.equal(res.status, status);
        const upstreamId = upstreamEntry(gw, id)?.id;
        t.equal(res.headers['x-request-id'], id, "the gateway's request id");
        t.equal(res.headers['x-upstream-request-id'], upstreamId, "the upstream's id, renamed");
        t.equal(res.headers['content-type'], 'application/json');
        t.equal(Number(res.headers['content-length']), Buffer.byteLength(res.text));
        if (status === 429) t.equal(res.headers['retry-after'], '1', "the upstream's Retry-After");
        // The simulator's own rendering of the error; modelc adds a random completion id, taken as sent.
        const body = JSON.parse(res.text) as Record<string, unknown>;
        const expected = sim.errorBody(SimErrors.status(status), upstreamId ?? '') as Record<string, unknown>;
        if ('id' in expected) expected.id = body.id;
        t.strictSame(body, expected, "the upstream's body, byte for byte in meaning");
        // Hop-by-hop headers are the gateway's own: the upstream's `keep-alive: timeout=5` is not copied.
        t.equal(res.headers['keep-alive'], 'timeout=65');
        for (const name of ['connection', 'keep-alive', 'x-request-id', 'content-length']) {
          t.equal(res.names.filter((n) => n === name).length, 1, `one ${name} header`);
        }
      }
    });
  }

  t.test('a client that leaves before the upstream answers aborts the upstream request', async (t) => {
    const id = 'err-client-gone';
    const req = request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${gw.key}`,
        'x-request-id': id,
        'x-sim-latency-ms': '5000',
      },
    });
    req.on('error', () => undefined); // the socket is destroyed on purpose
    req.end(JSON.stringify(chat('modela-5.5')));
    await eventually(() => upstreamEntry(gw, id) !== undefined);
    req.destroy();
    // An upstream that answered (after 5 s) would be finished, never aborted.
    await eventually(() => upstreamEntry(gw, id)?.aborted === true, 10_000, 'the upstream request aborted');
    t.pass('the upstream saw the request aborted');
  });
});

t.test('an unreachable upstream → 502 upstream_unreachable', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    ((doc.upstreams as ConfigDoc)['modela-main'] as ConfigDoc).base_url = 'http://127.0.0.1:1/v1';
  });
  const url = `${gw.url}/v1/chat/completions`;
  for (const stream of [false, true]) {
    const res = await postJson<ErrorBody>(url, chat('modela-5.5', { stream }), gw.key, {
      'x-request-id': `dead-${stream}`,
    });
    t.equal(res.status, 502, `stream: ${stream}`);
    t.strictSame(res.body, {
      error: {
        code: 'upstream_unreachable',
        message: 'upstream modela-main could not be reached',
        type: 'error',
      },
    });
    t.equal(res.headers.get('content-type'), 'application/json');
    t.equal(res.headers.get('x-request-id'), `dead-${stream}`);
  }
  t.equal((await postJson(url, chat('modelb-3.5-flash'), gw.key)).status, 200, 'other upstreams still work');
});

t.test('an upstream too slow for its response headers → 504 upstream_timeout', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    (doc.server as ConfigDoc).timeouts = { upstream_response: '200ms' };
    // The upstream's own setting wins over the server-wide one (long: a loaded machine must not reach it).
    ((doc.upstreams as ConfigDoc)['modelc-main'] as ConfigDoc).timeouts = { response: '10s' };
    // One socket to modelb, so a second request has to wait in the agent's queue.
    ((doc.upstreams as ConfigDoc)['modelb-main'] as ConfigDoc).max_sockets = 1;
  });
  const url = `${gw.url}/v1/chat/completions`;

  for (const stream of [false, true]) {
    t.test(`stream: ${stream}`, async (t) => {
      const id = `slow-${stream}`;
      const started = performance.now();
      const res = await postJson<ErrorBody>(url, chat('modela-5.5', { stream }), gw.key, {
        'x-request-id': id,
        'x-sim-latency-ms': '5000',
      });
      const took = performance.now() - started;
      t.equal(res.status, 504);
      t.equal(res.body.error.code, 'upstream_timeout');
      t.equal(res.body.error.type, 'error');
      t.equal(res.headers.get('x-request-id'), id);
      t.ok(took < 4_000, `answered after ${Math.round(took)} ms, before the upstream's 5 s`);
      await eventually(() => upstreamEntry(gw, id)?.aborted === true, 4_000, 'the upstream request aborted');
      t.pass('the upstream request was aborted');
    });
  }

  t.test("an upstream's own response timeout overrides the server's", async (t) => {
    const res = await postJson(url, chat('modelc-3.6-flash'), gw.key, { 'x-sim-latency-ms': '500' });
    t.equal(res.status, 200);
  });

  t.test('a request that timed out while queued for a socket is never sent upstream', async (t) => {
    // A stream holds modelb's only socket (its headers come at once: no timeout) until the test lets go:
    // ten seconds of stream, so the request behind it waits out its 200 ms whatever the machine's load.
    const holding = await openStream(url, chat('modelb-3.5-flash', { stream: true }), gw.key, {
      'x-request-id': 'holding',
      'x-sim-tps': '5',
      'x-sim-tokens': '50',
    });
    const queued = await postJson<ErrorBody>(url, chat('modelb-3.5-flash'), gw.key, {
      'x-request-id': 'queued',
    });
    t.equal(queued.status, 504);
    t.equal(holding.statusCode, 200);
    // The stream lets go of the socket: the gateway aborts its upstream request when the client leaves.
    holding.destroy();
    await eventually(() => upstreamEntry(gw, 'holding')?.aborted === true, 10_000, 'the holding stream gone');
    // Requests leave the agent's queue in order: once a later one has reached the upstream, an
    // abandoned one still queued would have reached it first.
    await postJson(url, chat('modelb-3.5-flash'), gw.key, { 'x-request-id': 'after-queued' });
    t.equal(upstreamEntry(gw, 'after-queued')?.status, 200);
    t.equal(gw.sim.log.list('queued').length, 0, 'the upstream never saw the abandoned request');
  });
});

t.test('headers crossing the gateway', async (t) => {
  // A bare upstream that answers with hop-by-hop headers, to see which reach the client.
  let received: IncomingHttpHeaders = {};
  const raw = createServer((req, res) => {
    received = req.headers;
    req.resume().on('end', () => {
      const body = JSON.stringify({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } });
      res.writeHead(200, {
        'content-type': 'application/json',
        connection: 'keep-alive, x-hop',
        'x-hop': 'upstream-connection-only',
        'proxy-authenticate': 'Basic realm="upstream"',
        'x-end-to-end': 'kept',
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => raw.close(() => resolve())));
  const rawPort = (raw.address() as AddressInfo).port;

  const gw = await startTestGateway(t, (doc) => {
    (doc.upstreams as ConfigDoc)['modela-raw'] = {
      plugin: 'modela',
      base_url: `http://127.0.0.1:${rawPort}/v1`,
      api_key: 'raw-upstream-key',
    };
    doc.routes = {
      'modela-5.5': { targets: [{ upstream: 'modela-main' }] },
      'modela-5.6-luna': { targets: [{ upstream: 'modela-raw' }] },
    };
  });
  const url = `${gw.url}/v1/chat/completions`;

  t.test("the upstream's credential replaces the client's; other client headers pass", async (t) => {
    for (const { family, model } of FAMILY_MODELS) {
      const id = `hdr-${family}`;
      const res = await rawPost(url, chat(model), {
        authorization: `Bearer ${gw.key}`,
        'x-request-id': id,
        'x-api-key': gw.key,
        cookie: 'session=client-secret',
        'x-custom-trace': 'trace-123',
        'accept-encoding': 'gzip, br',
      });
      t.equal(res.status, 200, family);
      const seen = upstreamEntry(gw, id)?.headers ?? {};
      t.equal(seen.authorization, `Bearer sim-${family}-key`, "the upstream's own credential");
      t.notOk(JSON.stringify(seen).includes(gw.key), "the client's key reaches the upstream nowhere");
      t.equal(seen['x-api-key'], undefined);
      t.equal(seen.cookie, undefined);
      t.equal(seen['x-custom-trace'], 'trace-123', 'a non-credential header passes');
      t.equal(seen['accept-encoding'], 'identity', 'the gateway must read the body uncompressed');
      t.equal(seen['x-request-id'], id, "the gateway's request id goes upstream");
      t.equal(seen.host, new URL(gw.sim.url).host, "the upstream's own host");
    }
  });

  t.test('hop-by-hop request headers stop at the gateway', async (t) => {
    const res = await rawPost(url, chat('modela-5.6-luna'), {
      authorization: `Bearer ${gw.key}`,
      'proxy-authorization': 'Basic Y2xpZW50OnNlY3JldA==',
      te: 'trailers',
      'x-kept': 'yes',
    });
    t.equal(res.status, 200);
    t.equal(received['proxy-authorization'], undefined);
    t.equal(received.te, undefined);
    t.equal(received['x-kept'], 'yes');
    t.equal(received.authorization, 'Bearer raw-upstream-key');
  });

  t.test('hop-by-hop response headers stop at the gateway', async (t) => {
    const res = await rawPost(url, chat('modela-5.6-luna'), { authorization: `Bearer ${gw.key}` });
    t.equal(res.status, 200);
    t.equal(res.headers['proxy-authenticate'], undefined);
    t.equal(res.headers['x-end-to-end'], 'kept');
    t.equal(res.headers.connection, 'keep-alive', "the gateway's own connection header");
  });

  t.test('headers named in Connection are hop-by-hop too (RFC 9110 §7.6.1)', async (t) => {
    const res = await rawPost(url, chat('modela-5.6-luna'), {
      authorization: `Bearer ${gw.key}`,
      connection: 'keep-alive, x-client-hop',
      'x-client-hop': 'client-connection-only',
    });
    t.equal(res.status, 200);
    t.equal(received['x-client-hop'], undefined, 'not forwarded upstream');
    t.equal(res.headers['x-hop'], undefined, 'not returned to the client');
  });
});

t.test('requests in flight together each reach their upstream with their own body', async (t) => {
  const gw = await startTestGateway(t);
  const url = `${gw.url}/v1/chat/completions`;
  // Two upstreams, and more requests at once than the agents hold sockets for some: the bodies go out
  // interleaved, sent by shared http-proxy-3 servers.
  const sent = Array.from({ length: 60 }, (_, i) => ({
    id: `own-body-${i}`,
    body: chat(i % 2 ? 'modela-5.5' : 'modelc-3.6-flash', {
      messages: [{ role: 'user', content: `message ${i} ${'x'.repeat(i * 97)}` }],
    }),
  }));
  const answers = await Promise.all(
    sent.map(({ id, body }) => rawPost(url, body, { authorization: `Bearer ${gw.key}`, 'x-request-id': id })),
  );
  t.ok(
    answers.every((a) => a.status === 200),
    'every request answered',
  );
  for (const { id, body } of sent) {
    const got = upstreamEntry(gw, id)?.body as { messages?: unknown; model?: unknown } | undefined;
    t.same(got?.messages, body.messages, `${id}: its own messages`);
  }
});
