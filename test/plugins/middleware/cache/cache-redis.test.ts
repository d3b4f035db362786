/**
 * The cache on Redis: an entry one instance stored is a hit on another sharing the Redis, every entry
 * has a TTL, `DELETE /admin/cache` empties it for all, and a Redis that goes away turns the cache into
 * misses, never into errors.
 */
import 'reflect-metadata';
import t from 'tap';
import { Redis } from 'ioredis';
import { startTestGateway, type ConfigDoc } from '../../../helpers/gateway';
import { postJson } from '../../../helpers/http';
import { privateRedis, redisPrefix, TEST_REDIS_URL } from '../../../helpers/redis';
import { until } from '../../../helpers/wait';
import { freshPrompt, upstreamCalls, withCache } from './cache-helpers';

const SECRET = `sk-${'c'.repeat(40)}`;

/** The cache on `url`, and one key every instance accepts (its id is the same on each). */
const onRedis =
  (url: string, prefix: string) =>
  (doc: ConfigDoc): void => {
    withCache({ backend: 'redis', ttl: '10m' })(doc);
    doc.redis = { url, key_prefix: prefix };
    doc.keys = { ...(doc.keys as object), declared: [{ name: 'shared', secret: SECRET }] };
  };

const ask = (url: string, content: string, id: string) =>
  postJson(
    `${url}/v1/chat/completions`,
    { model: 'modela-5.5', messages: [{ role: 'user', content }] },
    SECRET,
    { 'x-request-id': id },
  );

t.test('two instances share the cache', async (t) => {
  const prefix = redisPrefix(t);
  const one = await startTestGateway(t, onRedis(TEST_REDIS_URL, prefix));
  const two = await startTestGateway(t, onRedis(TEST_REDIS_URL, prefix));
  const prompt = freshPrompt();
  const first = await ask(one.url, prompt, 'r-one');
  t.equal(first.headers.get('x-gateway-cache'), 'miss');
  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(() => redis.disconnect());
  // Stored in the first call's finish, after its last byte: wait for the entry, not for a time.
  const names = await until(
    () => redis.keys(`${prefix}cache:*`),
    (found) => found.length > 0,
    { what: 'the entry on Redis' },
  );
  t.equal(names.length, 1);
  const ttl = await redis.pttl(names[0]!);
  t.ok(ttl > 0 && ttl <= 600_000, `the entry has its TTL (${ttl} ms)`);
  const second = await ask(two.url, prompt, 'r-two');
  t.equal(second.headers.get('x-gateway-cache'), 'hit', 'the other instance hits');
  t.strictSame(second.body, first.body);
  t.equal(upstreamCalls(two, 'r-two'), 0);
  const cleared = await fetch(`${two.gateway.adminUrl}/admin/cache?key_id=declared:shared`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${two.gateway.adminToken}` },
  });
  t.strictSame(await cleared.json(), { deleted: 1 });
  t.equal((await ask(one.url, prompt, 'r-after')).headers.get('x-gateway-cache'), 'miss');
});

t.test('a Redis that goes away: misses, never errors', async (t) => {
  const server = await privateRedis(t);
  const gw = await startTestGateway(t, onRedis(server.url, 'outage:'));
  const prompt = freshPrompt();
  await ask(gw.url, prompt, 'o-1');
  await until(
    () => ask(gw.url, prompt, 'o-2'),
    (res) => res.headers.get('x-gateway-cache') === 'hit',
    { what: 'a hit' },
  );
  await server.kill();
  for (const id of ['o-3', 'o-4']) {
    const res = await ask(gw.url, prompt, id);
    t.equal(res.status, 200, 'answered by the upstream');
    t.equal(res.headers.get('x-gateway-cache'), 'miss');
    t.equal(upstreamCalls(gw, id), 1);
  }
  await server.start();
  // Once the link is back, entries are stored and served again.
  const back = await until(
    () => ask(gw.url, prompt, 'o-5'),
    (res) => res.headers.get('x-gateway-cache') === 'hit',
    { what: 'a hit once Redis is back' },
  );
  t.equal(back.status, 200);
});

t.test('a Redis that never answers: the gateway starts, and every call misses', async (t) => {
  const gw = await startTestGateway(t, onRedis('redis://127.0.0.1:1', 'none:'));
  const prompt = freshPrompt();
  for (const id of ['n-1', 'n-2']) {
    const res = await ask(gw.url, prompt, id);
    t.equal(res.status, 200);
    t.equal(res.headers.get('x-gateway-cache'), 'miss');
  }
});
