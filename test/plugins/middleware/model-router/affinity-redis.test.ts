/**
 * Session affinity shared on Redis (the real one): two gateway processes on one Redis, in front of the same two
 * simulators, send one session to the same target whichever of them each call reaches, and keep the
 * placement under the gateway's key prefix. A Redis that cannot be reached fails no call: each takes the
 * route's normal weighted choice, and the gateway says so once.
 */
import t from 'tap';
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { startSimulator } from '../../../../simulator/server';
import { startCluster } from '../../../helpers/cluster';
import { startTestGateway } from '../../../helpers/gateway';
import { postJson } from '../../../helpers/http';
import { recordingLogger } from '../../../helpers/logs';
import { refusedUrl } from '../../../helpers/ports';
import { redisPrefix, TEST_REDIS_URL } from '../../../helpers/redis';
import { MODEL, servedBy, servedSet, twoTargets } from '../../../helpers/affinity';

t.test('two gateway processes on one Redis send a session to the same target', async (t) => {
  const [main, backup] = await Promise.all([startSimulator(), startSimulator()]);
  t.teardown(() => Promise.all([main.close(), backup.close()]));
  const keyPrefix = redisPrefix(t);
  const cluster = await startCluster(t, {
    sim: main,
    redisUrl: TEST_REDIS_URL,
    keyPrefix,
    rateLimit: { requests_per_minute: 100_000 },
    instances: 2,
    adjust: (doc) => twoTargets(doc, backup.url, { header: 'x-session-id', ttl: '10m' }),
  });
  let calls = 0;
  /** A call through instance `i % 2`; which simulator (target) it reached. */
  const reached = async (i: number, session: string): Promise<string> => {
    const id = `redis-affinity-${++calls}`;
    const url = `${cluster.urls[i % 2]}/v1/chat/completions`;
    const body = { model: MODEL, messages: [{ role: 'user', content: 'hi #sim tokens=2' }] };
    const res = await postJson(url, body, cluster.key, { 'x-request-id': id, 'x-session-id': session });
    if (res.status !== 200) throw new Error(`call ${id}: ${res.status} ${res.text}`);
    if (main.log.list(id).length > 0) return 'modela-main';
    return backup.log.list(id).length > 0 ? 'modela-backup' : 'neither';
  };
  const session = await servedSet(12, (i) => reached(i, 'session-1'));
  t.equal(session.size, 1, `12 calls, 6 through each instance, all on ${[...session].join()}`);
  const others = await servedSet(30, (i) => reached(i, `session-${i + 2}`));
  t.strictSame([...others].sort(), ['modela-backup', 'modela-main'], 'other sessions spread over both');

  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(() => redis.disconnect());
  const key = `${keyPrefix}affinity:${MODEL}:${createHash('sha256').update('session-1').digest('hex')}`;
  t.equal(await redis.get(key), JSON.stringify([[...session][0], MODEL]), 'the placement, by its name');
  const ttl = await redis.pttl(key);
  t.ok(ttl > 500_000 && ttl <= 600_000, `kept for the route's ttl from the last call (${ttl} ms)`);
});

t.test('a Redis that cannot be reached: the normal choice, and no call fails', async (t) => {
  const backup = await startSimulator();
  t.teardown(() => backup.close());
  const { logger, lines } = recordingLogger('warn');
  const gw = await startTestGateway(
    t,
    (doc) => {
      twoTargets(doc, backup.url, { header: 'x-session-id' });
      doc.redis = { url: refusedUrl('', 'redis'), key_prefix: redisPrefix(t) };
    },
    { logger },
  );
  const session = await servedSet(30, () => servedBy(gw, 'session-1'));
  t.strictSame([...session].sort(), ['modela-backup', 'modela-main'], 'the weighted choice, each call');
  const said = lines.filter((l) => /session affinity: redis did not answer/.test(l.msg));
  t.equal(said.length, 1, 'said once');
});
