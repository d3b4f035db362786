/**
 * Redis killed mid-run under three gateway processes (a redis-server of the test's own): every decision
 * still comes within 150 ms and no request hangs; each instance decides locally at the limit ÷ the three
 * live instances, says so once in its log; after Redis restarts the limit is shared again.
 */
import t from 'tap';
import { startSimulator } from '../../../../simulator/server';
import { startCluster } from '../../../helpers/cluster';
import { postJson } from '../../../helpers/http';
import { eventually } from '../../../helpers/wait';
import { privateRedis } from '../../../helpers/redis';
import { sleep } from './limiter-cases';

const chat = { model: 'modelc-3.6-flash', messages: [{ role: 'user', content: 'hi' }] };
const LIMIT = 30;
const DECISION_MS = 150;

void t.test('redis stopped and restarted: fast local decisions, then shared again', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const redis = await privateRedis(t);
  const cluster = await startCluster(t, {
    sim,
    redisUrl: redis.url,
    keyPrefix: 'gw:',
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

  await sleep(1_500); // each instance has seen all three alive (a heartbeat a second)
  const before = await round(2);
  t.strictSame(before.admitted, [2, 2, 2], 'redis up: all admitted');

  await redis.kill();
  const during = await round(15);
  t.ok(
    during.slowestRefusal < DECISION_MS,
    `every decision within ${DECISION_MS} ms (slowest refusal ${during.slowestRefusal} ms)`,
  );
  // An admitted call adds the upstream's round trip (in this busy test process) to its decision.
  t.ok(during.slowest < 400, `no request hangs (slowest answer ${during.slowest} ms)`);
  t.strictSame(
    during.admitted,
    [10, 10, 10],
    `each instance admits ${LIMIT} ÷ 3 on its own while redis is away`,
  );
  // The log is written asynchronously, at least every 200 ms: the line may still be on its way.
  const warnedOf = (p: (typeof processes)[number]): number =>
    p
      .stdout()
      .split('\n')
      .filter((l) => l.includes('deciding locally')).length;
  await eventually(() => processes.every((p) => warnedOf(p) > 0), 2_000).catch(() => undefined);
  for (const p of processes) t.equal(warnedOf(p), 1, 'the fallback is logged once per outage');

  await redis.start();
  // Each instance goes back to Redis with its next decision (after a pause, if that one failed); probes
  // with another key, whose window is its own, bring each back without touching the shared key's.
  await eventually(async () => {
    await Promise.all(urls.map((url) => postJson(`${url}/v1/chat/completions`, chat, cluster.probeKey)));
    return processes.every((p) => p.stdout().includes('redis answers again'));
  }, 10_000);
  // The restarted server is empty (no persistence): a shared window of 30 again, not 10 full local ones.
  const after = await round(12);
  t.equal(
    after.admitted.reduce((a, b) => a + b, 0),
    LIMIT,
    'redis back: the instances share one limit again',
  );
  t.ok(after.slowest < 1_000, 'no request hangs');
});
