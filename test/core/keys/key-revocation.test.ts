/**
 * One gateway, no Redis: a key disabled, deleted or expired while its streams are open gets those streams
 * ended with the API's error event within a second, and its next request refused. Expiry is judged on
 * the wall clock, which the expiry test holds still and then moves past the key's expiry.
 */
import t from 'tap';
import { performance } from 'node:perf_hooks';
import { frozenDate } from '../../helpers/clock';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';
import { keyId, openLongStream } from '../../helpers/key-streams';
import { until } from '../../helpers/wait';
import { checksOf, deliversAfterNow } from './stream-checks';

const hello = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };

const admin = (gw: TestGateway, method: string, path: string, body?: unknown): Promise<Response> =>
  fetch(`${gw.gateway.adminUrl}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${gw.gateway.adminToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

t.test('revoking a key ends its open streams and refuses its next request', async (t) => {
  const gw = await startTestGateway(t);
  const chat = `${gw.url}/v1/chat/completions`;

  const cases = [
    {
      name: 'disabled',
      code: 'key_disabled',
      status: 403,
      revoke: (id: string) => admin(gw, 'POST', `/keys/${id}/disable`),
    },
    {
      name: 'deleted',
      code: 'unauthorized',
      status: 401,
      revoke: (id: string) => admin(gw, 'DELETE', `/keys/${id}`),
    },
  ];
  for (const { name, code, status, revoke } of cases) {
    t.test(name, async (t) => {
      const key = await gw.createKey();
      const other = await gw.createKey();
      const streams = await Promise.all([openLongStream(gw.url, key), openLongStream(gw.url, key)]);
      const bystander = await openLongStream(gw.url, other);
      const revokedAt = performance.now();
      t.equal((await revoke(keyId(key))).status, 200);
      for (const end of await Promise.all(streams.map((s) => s.ended))) {
        const ms = end.at - revokedAt;
        t.ok(ms < 1_000, `ended ${Math.round(ms)} ms after the change`);
        t.equal(end.error?.code, code, `the last event is the ${code} error`);
        t.notOk(end.text.includes('[DONE]'), 'not a clean end');
      }
      t.ok(bystander.isOpen(), "another key's stream goes on");
      bystander.res.destroy();
      t.equal((await postJson(chat, hello, key)).status, status, `the next request gets ${status}`);
    });
  }

  t.test('a change that keeps the key working leaves its streams alone', async (t) => {
    const key = await gw.createKey();
    const stream = await openLongStream(gw.url, key);
    const checks = checksOf(gw.gateway.keys, keyId(key));
    t.equal((await admin(gw, 'PATCH', `/keys/${keyId(key)}`, { description: 'renamed' })).status, 200);
    // Checked again since the change: by its event, or else by the next sweep (a second at most).
    const since = checks();
    await until(checks, (n) => n > since, { what: 'a check of the key after the change' });
    t.ok(await deliversAfterNow(stream), 'still streaming');
    stream.res.destroy();
  });

  t.test('expiry mid-stream, with no event at all: the periodic check ends the stream', async (t) => {
    const date = frozenDate(t);
    const expiresAt = Date.now() + 1_500;
    const key = await gw.createKey({ expires_at: new Date(expiresAt).toISOString() });
    const stream = await openLongStream(gw.url, key);
    t.ok(stream.isOpen(), 'streaming before its expiry');
    date.tick(1_500); // the key's expiry comes
    const expired = performance.now();
    const end = await stream.ended;
    const late = Math.round(end.at - expired);
    t.ok(late < 1_600, `ended ${late} ms after the expiry (check every 1 s)`);
    t.equal(end.error?.code, 'unauthorized');
    t.equal((await postJson(chat, hello, key)).status, 401);
  });
});
