/**
 * Failed authentications per client address: past the limit the address gets 429 with Retry-After, a
 * correct key included, until its window ends; other addresses are not affected. 127.0.0.2 is a second
 * client address on Linux's loopback.
 */
import t from 'tap';
import { request } from 'node:http';
import { startTestGateway } from '../../helpers/gateway';

interface Answer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly code: string | undefined;
}

/** A chat POST from `localAddress`. */
function chatFrom(url: string, key: string, localAddress: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/chat/completions`, {
      method: 'POST',
      localAddress,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    });
    req.on('error', reject).on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => {
        const body = JSON.parse(text) as { error?: { code?: string } };
        const retry = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, retryAfter: retry, code: body.error?.code });
      });
    });
    req.end(JSON.stringify({ model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] }));
  });
}

t.test('failed authentications per address', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.keys = { failed_auth_limit: 5, failed_auth_window: '2s' };
  });
  const wrong = 'sk-' + 'x'.repeat(43);
  const first: Answer[] = [];
  for (let i = 0; i < 5; i++) first.push(await chatFrom(gw.url, wrong, '127.0.0.1'));
  t.strictSame(new Set(first.map((a) => a.status)), new Set([401]), 'the first five: 401');

  const blocked = await chatFrom(gw.url, wrong, '127.0.0.1');
  t.equal(blocked.status, 429, 'the sixth: 429');
  t.equal(blocked.code, 'rate_limited');
  const seconds = Number(blocked.retryAfter);
  t.ok(seconds >= 1 && seconds <= 2, `Retry-After: ${blocked.retryAfter}`);
  t.equal((await chatFrom(gw.url, gw.key, '127.0.0.1')).status, 429, 'a correct key from that address too');
  t.equal((await chatFrom(gw.url, gw.key, '127.0.0.2')).status, 200, 'another address is served');
  t.equal((await chatFrom(gw.url, wrong, '127.0.0.2')).status, 401, 'and counted on its own');

  await new Promise((r) => setTimeout(r, 2_100));
  t.equal((await chatFrom(gw.url, gw.key, '127.0.0.1')).status, 200, 'served again after the window');
});
