/**
 * Failed authentications per client address: past the limit the address's wrong, unknown and malformed
 * keys get 429 with Retry-After until its window ends, without a store lookup each; a correct key is
 * still checked and admitted; other addresses are not affected. 127.0.0.2 is a second client address on
 * Linux's loopback. The window is timed on the wall clock, which the test holds still and then moves
 * past the window's end, so a busy machine cannot end the window early nor make the test wait it out.
 */
import t from 'tap';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { EmbeddedKeyStore } from '../../../core/stores/embedded/embedded-key-store';
import type { KeyStore } from '../../../core/stores/key-store';
import { frozenDate } from '../../helpers/clock';
import { startTestGateway, tempDir, type Teardown } from '../../helpers/gateway';

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

/** Read calls the key store answered, by method. */
type Reads = Record<'findByHash' | 'findById' | 'list', number>;

/** An embedded key store that counts its reads. */
async function countingStore(t: Teardown): Promise<{ store: KeyStore; reads: Reads }> {
  const inner = await EmbeddedKeyStore.open(await tempDir(t));
  t.teardown(() => inner.close());
  const reads: Reads = { findByHash: 0, findById: 0, list: 0 };
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof name === 'string' && name in reads) reads[name as keyof Reads]++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, reads };
}

const randomKey = (): string => 'sk-' + randomBytes(32).toString('base64url');

t.test('failed authentications per address', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.keys = { failed_auth_limit: 5, failed_auth_window: '2s' };
  });
  const date = frozenDate(t);
  const wrong = 'sk-' + 'x'.repeat(43);
  const first: Answer[] = [];
  for (let i = 0; i < 5; i++) first.push(await chatFrom(gw.url, wrong, '127.0.0.1'));
  t.strictSame(new Set(first.map((a) => a.status)), new Set([401]), 'the first five: 401');

  const blocked = await chatFrom(gw.url, wrong, '127.0.0.1');
  t.equal(blocked.status, 429, 'the sixth: 429');
  t.equal(blocked.code, 'rate_limited');
  const seconds = Number(blocked.retryAfter);
  t.ok(seconds >= 1 && seconds <= 2, `Retry-After: ${blocked.retryAfter}`);
  t.equal((await chatFrom(gw.url, gw.key, '127.0.0.1')).status, 200, 'a correct key from that address: 200');
  const fresh = await gw.createKey();
  t.equal((await chatFrom(gw.url, fresh, '127.0.0.1')).status, 200, 'and a key never presented before');
  t.equal((await chatFrom(gw.url, wrong, '127.0.0.1')).status, 429, 'its wrong keys still get 429');
  t.equal((await chatFrom(gw.url, gw.key, '127.0.0.2')).status, 200, 'another address is served');
  t.equal((await chatFrom(gw.url, wrong, '127.0.0.2')).status, 401, 'and counted on its own');

  date.tick(2_100); // the window's two seconds pass
  t.equal((await chatFrom(gw.url, wrong, '127.0.0.1')).status, 401, 'after the window: 401 again');
});

t.test(
  'a correct key after 100 wrong ones from one address: 200, and the guesses spared the store',
  async (t) => {
    const { store, reads } = await countingStore(t);
    const gw = await startTestGateway(
      t,
      (doc) => {
        doc.keys = { failed_auth_limit: 20, failed_auth_window: '60s', cache_ttl: '10s' };
      },
      { keyStore: store },
    );
    const key = await gw.createKey();
    const realId = key.slice(3, 11);
    const failures = new Set<number>();
    for (let i = 0; i < 20; i++) failures.add((await chatFrom(gw.url, randomKey(), '127.0.0.1')).status);
    t.strictSame([...failures], [401], 'the first 20 wrong keys: 401');

    const before = { ...reads };
    const started = Date.now();
    const guesses = [
      ...Array.from({ length: 60 }, randomKey), // random ids: no key has them
      ...Array.from(
        { length: 30 },
        () => `sk-${realId}${randomBytes(32).toString('base64url').slice(0, 35)}`,
      ),
      ...Array.from({ length: 10 }, () => 'sk-short'),
    ];
    // As a flood comes: at once. Guesses at ids nobody has wait for one shared listing of the ids.
    const answers = await Promise.all(guesses.map((guess) => chatFrom(gw.url, guess, '127.0.0.1')));
    const elapsed = Date.now() - started;
    t.strictSame(
      [...new Set(answers.map((a) => a.status))],
      [429],
      '100 wrong keys past the limit: each 429',
    );
    t.equal(reads.findByHash - before.findByHash, 0, 'no lookup by hash for any of them');
    t.equal(reads.findById - before.findById, 1, 'the 30 guesses at a real id: one read of its record');
    t.ok(
      reads.list - before.list <= 2 + elapsed / 1_000,
      `key ids listed at most once a second (${reads.list - before.list} in ${elapsed} ms)`,
    );

    // Never presented before, so not in the lookup cache: checked against its record.
    t.equal((await chatFrom(gw.url, key, '127.0.0.1')).status, 200, 'then the correct key: 200');
  },
);
