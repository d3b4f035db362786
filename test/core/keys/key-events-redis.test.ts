/**
 * Three instances over one key store (as with MongoDB) and one Redis: a key disabled on one is refused
 * by every instance, and its streams open on the others end with an error event at once (a pub/sub hop:
 * milliseconds, though a busy machine may take a second or two). The instances run in this process
 * (there is no MongoDB server here to share between processes), each with its own data directory for
 * usage and tasks; the cache TTL and the revocation sweep are set to a minute, so only the pub/sub event
 * can make it that fast. With Redis down, the sweep still ends the streams.
 */
import 'reflect-metadata';
import '../../helpers/load-plugins';
import t from 'tap';
import { performance } from 'node:perf_hooks';
import { buildConfig } from '../../../config/load';
import { startGateway, type RunningGateway } from '../../../core/boot/gateway';
import { EmbeddedKeyStore } from '../../../core/stores/embedded/embedded-key-store';
import { startSimulator } from '../../../simulator/server';
import { tempDir, testConfig, type Teardown } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';
import { eventually } from '../../helpers/wait';
import { keyId, openLongStream } from '../../helpers/key-streams';
import { patientRedis } from '../../helpers/patient-redis';
import { privateRedis, redisPrefix, TEST_REDIS_URL } from '../../helpers/redis';

const hello = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };
/** Well inside the minute the cache and the sweep would take: only the event ends a stream this soon. */
const EVENT_MS = 5_000;

/** Three gateways sharing one key store and the Redis at `redisUrl`. */
async function cluster(
  t: Teardown,
  redisUrl: string,
  keys: { cache_ttl: string; revoke_check_every: string },
): Promise<RunningGateway[]> {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const shared = await EmbeddedKeyStore.open(await tempDir(t));
  t.teardown(() => shared.close());
  // A private server is killed by its test: nothing to clean up there, and no client to reach it.
  const prefix = redisUrl === TEST_REDIS_URL ? redisPrefix(t) : 'keyevents:';
  const env = { GATEWAY_KEY_SECRET: 'shared-secret-for-this-test' };
  const gateways: RunningGateway[] = [];
  for (let i = 0; i < 3; i++) {
    const doc = testConfig(sim.url, await tempDir(t));
    doc.redis = { url: redisUrl, key_prefix: prefix };
    patientRedis(doc); // an event is published however busy the machine (its loss costs a minute)
    doc.keys = keys;
    const gateway = await startGateway(buildConfig(doc, {}), { env, keyStore: shared });
    t.teardown(() => gateway.close(1_000));
    gateways.push(gateway);
  }
  return gateways;
}

const disable = (gateway: RunningGateway, id: string): Promise<Response> =>
  fetch(`${gateway.adminUrl}/admin/keys/${id}/disable`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.adminToken}` },
  });

t.test('a key disabled on one instance: refused by all, its streams on the others ended', async (t) => {
  const [a, b, c] = await cluster(t, TEST_REDIS_URL, { cache_ttl: '60s', revoke_check_every: '60s' });
  const created = await a!.keys.create({});
  const key = created.key;
  for (const gw of [a!, b!, c!]) {
    t.equal((await postJson(`${gw.url}/v1/chat/completions`, hello, key)).status, 200, 'served (and cached)');
  }
  t.equal([a, b, c].filter((g) => g?.firstKey).length, 1, 'one first key between the three');

  const streams = await Promise.all([b!, b!, c!, c!].map((gw) => openLongStream(gw.url, key)));
  const disabledAt = performance.now();
  t.equal((await disable(a!, keyId(key))).status, 200);
  for (const end of await Promise.all(streams.map((s) => s.ended))) {
    const ms = end.at - disabledAt;
    t.ok(ms < EVENT_MS, `a stream ended ${Math.round(ms)} ms after the change`);
    t.equal(end.error?.code, 'key_disabled', 'with the key_disabled error event');
  }
  for (const gw of [a!, b!, c!]) {
    const res = await postJson(`${gw.url}/v1/chat/completions`, hello, key);
    t.equal(res.status, 403, 'refused (the minute-long cache entry was evicted)');
  }
});

t.test('with Redis down, the sweep ends the streams of a key disabled elsewhere', async (t) => {
  const redis = await privateRedis(t);
  const [a, b] = await cluster(t, redis.url, { cache_ttl: '1s', revoke_check_every: '1s' });
  const { key } = await a!.keys.create({});
  const stream = await openLongStream(b!.url, key);
  await redis.kill();
  await eventually(() => !a!.redis?.up, undefined, 'the instance seeing redis gone');
  const disabledAt = performance.now();
  t.equal((await disable(a!, keyId(key))).status, 200, 'changed while the event cannot be published');
  const end = await stream.ended;
  const ms = end.at - disabledAt;
  t.ok(ms < 2_000, `ended ${Math.round(ms)} ms after the change (sweep every 1 s)`);
  t.equal(end.error?.code, 'key_disabled');
  await eventually(
    async () => (await postJson(`${b!.url}/v1/chat/completions`, hello, key)).status === 403,
    2_000,
  );
  t.pass('refused within the cache TTL');
});
