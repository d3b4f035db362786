/**
 * Redis killed mid-run under three gateway processes (a redis-server of the test's own): every decision
 * still comes at once, without waiting on Redis, and no request hangs; each instance decides locally at
 * the limit ÷ the three live instances, says so once in its log; after Redis restarts the limit is
 * shared again.
 */
import t from 'tap';
import { Redis } from 'ioredis';
import { startSimulator } from '../../../../simulator/server';
import { startCluster } from '../../../helpers/cluster';
import { postJson } from '../../../helpers/http';
import { until } from '../../../helpers/wait';
import { privateRedis } from '../../../helpers/redis';

const chat = { model: 'modelc-3.6-flash', messages: [{ role: 'user', content: 'hi' }] };
const LIMIT = 30;
/**
 * A command to Redis is given up after 5 s in a test cluster (test/helpers/cluster.ts), so a decision that waited on Redis would
 * take that long, and one taken locally takes milliseconds: a second tells them apart however busy the
 * machine is (and a Redis that answers is not turned into an outage by a stall).
 */
const DECISION_MS = 1_000;
/** An admitted call adds the upstream's round trip to its decision; a hang is a timeout of seconds. */
const ANSWER_MS = 2_000;

void t.test('redis stopped and restarted: fast local decisions, then shared again', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const redis = await privateRedis(t);
  const KEY_PREFIX = 'gw:';
  const cluster = await startCluster(t, {
    sim,
    redisUrl: redis.url,
    keyPrefix: KEY_PREFIX,
    rateLimit: { backend: 'redis', requests_per_minute: LIMIT, window: '30s' },
  });
  const { urls, key, processes } = cluster;
  const timed = async (url: string) => {
    const started = performance.now();
    const res = await postJson(`${url}/v1/chat/completions`, chat, key);
    return { status: res.status, ms: performance.now() - started };
  };
  /**
   * `n` calls to each instance in turn: how many each admitted, any other status, the slowest answer,
   * and the slowest refusal (a refusal is the decision alone: it never reaches the upstream).
   */
  const round = async (n: number) => {
    const admitted = urls.map(() => 0);
    const errors: number[] = [];
    const times: number[] = [];
    let slowestRefusal = 0;
    for (let i = 0; i < n * urls.length; i++) {
      const r = await timed(urls[i % urls.length]!);
      if (r.status === 200) admitted[i % urls.length]!++;
      else if (r.status !== 429) errors.push(r.status);
      else slowestRefusal = Math.max(slowestRefusal, r.ms);
      times.push(Math.round(r.ms));
    }
    t.strictSame(errors, [], 'every answer is 200 or 429');
    t.comment(`answers in ms, in order: ${times.join(' ')}`);
    return { admitted, slowest: Math.max(...times), slowestRefusal: Math.round(slowestRefusal) };
  };

  // Each instance counts the live ones at its heartbeat (one a second, an entry in a sorted set): once
  // all three are in the set, each instance's next beat counts three.
  const watcher = new Redis(redis.url);
  const beats = async () => {
    const flat = await watcher.zrange(`${KEY_PREFIX}instances`, '0', '-1', 'WITHSCORES');
    const scores = new Map<string, number>();
    for (let i = 0; i < flat.length; i += 2) scores.set(flat[i]!, Number(flat[i + 1]));
    return scores;
  };
  const all = await until(beats, (s) => s.size === 3, { what: 'three instances in the live set' });
  await until(beats, (s) => [...all].every(([id, score]) => (s.get(id) ?? 0) > score), {
    what: 'a heartbeat of each since all three were in',
  });
  watcher.disconnect();
  // The heartbeat's answer comes on the connection the decisions below use: each instance has read it
  // (and counts three) before it decides one of them.
  const before = await round(2);
  t.strictSame(before.admitted, [2, 2, 2], 'redis up: all admitted');

  await redis.kill();
  const during = await round(15);
  t.ok(
    during.slowestRefusal < DECISION_MS,
    `every decision at once, not after the command timeout (slowest refusal ${during.slowestRefusal} ms)`,
  );
  t.ok(during.slowest < ANSWER_MS, `no request hangs (slowest answer ${during.slowest} ms)`);
  t.strictSame(
    during.admitted,
    [10, 10, 10],
    `each instance admits ${LIMIT} ÷ 3 on its own while redis is away`,
  );
  const warnedOf = (p: (typeof processes)[number]): number =>
    p
      .stdout()
      .split('\n')
      .filter((l) => l.includes('deciding locally')).length;

  await redis.start();
  // Each instance goes back to Redis with its next decision (after a pause, if that one failed); probes
  // with another key, whose window is its own, bring each back without touching the shared key's.
  await until(
    async () => {
      await Promise.all(urls.map((url) => postJson(`${url}/v1/chat/completions`, chat, cluster.probeKey)));
      return processes.map((p) => p.stdout().includes('redis answers again'));
    },
    (back) => back.every(Boolean),
    { what: 'each instance back on redis' },
  );
  // Its log is one ordered stream: with the recovery's line in, every line of the outage is too.
  for (const p of processes) t.equal(warnedOf(p), 1, 'the fallback is logged once per outage');
  // The restarted server is empty (no persistence): a shared window of 30 again, not 10 full local ones.
  const after = await round(12);
  t.equal(
    after.admitted.reduce((a, b) => a + b, 0),
    LIMIT,
    'redis back: the instances share one limit again',
  );
  t.ok(after.slowest < ANSWER_MS, 'no request hangs');
});
