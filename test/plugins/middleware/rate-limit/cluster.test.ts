/**
 * Three real gateway processes sharing Redis and one key: limits hold across them exactly. The window is
 * shortened to seconds (the stage's `window` option) so a test sees whole windows pass, and Redis is
 * given seconds to answer (test/helpers/cluster.ts), so a stalled instance does not decide on its own.
 */
import t from 'tap';
import { Redis } from 'ioredis';
import { keyId } from '../../../../core/keys/api-key';
import { startSimulator } from '../../../../simulator/server';
import { startCluster } from '../../../helpers/cluster';
import { postJson } from '../../../helpers/http';
import { redisPrefix, TEST_REDIS_URL } from '../../../helpers/redis';
import { upstreamGate } from '../../../helpers/upstream-gate';
import { until } from '../../../helpers/wait';

const chat = (directives = '') => ({
  model: 'modelc-3.6-flash',
  messages: [{ role: 'user', content: `hi${directives ? `\n#sim ${directives}` : ''}` }],
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Sent {
  readonly sent: number;
  readonly received: number;
  readonly status: number;
  readonly retryAfter: string | null;
}

async function call(url: string, key: string, body = chat(), headers: Record<string, string> = {}) {
  const sent = Date.now();
  const res = await postJson(`${url}/v1/chat/completions`, body, key, headers);
  const answer: Sent = {
    sent,
    received: Date.now(),
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
  };
  return answer;
}

/**
 * The most admitted requests provably decided within one window: each decision lies between its
 * request's send and receipt, so those whose whole exchange fits in [sent_i, sent_i + window) were all
 * decided within a window. Never more than the true count, so `≤ limit` is a sound check.
 */
function mostInAnyWindow(admitted: readonly Sent[], windowMs: number): number {
  return Math.max(
    0,
    ...admitted.map((a) => admitted.filter((b) => b.sent >= a.sent && b.received < a.sent + windowMs).length),
  );
}

void t.test('requests per window: ten clients over three instances share one limit', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const WINDOW_MS = 6_000;
  const LIMIT = 12;
  const cluster = await startCluster(t, {
    sim,
    redisUrl: TEST_REDIS_URL,
    keyPrefix: redisPrefix(t),
    rateLimit: { backend: 'redis', requests_per_minute: LIMIT, window: WINDOW_MS },
  });

  const results: Sent[] = [];
  const start = Date.now();
  const RUN_MS = 8_000; // more than a window: the first ones leave it and others take their places
  await Promise.all(
    Array.from({ length: 10 }, async (_, client) => {
      const url = cluster.urls[client % 3]!;
      while (Date.now() - start < RUN_MS) {
        const r = await call(url, cluster.key);
        results.push(r);
        if (r.status === 429) await sleep(100); // a refused client pauses before its next try
      }
    }),
  );
  const admitted = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 429);
  t.same(
    results.filter((r) => r.status !== 200 && r.status !== 429).map((r) => r.status),
    [],
    'every answer is 200 or 429',
  );
  t.ok(mostInAnyWindow(admitted, WINDOW_MS) <= LIMIT, `at most ${LIMIT} in any window`);
  const firstWindow = admitted.filter((a) => a.received < start + WINDOW_MS - 500).length;
  t.ok(firstWindow >= LIMIT * 0.9, `and not far below: ${firstWindow} in the first window`);
  t.ok(admitted.length <= 2 * LIMIT, `${admitted.length} over ${RUN_MS} ms: at most two windows' worth`);
  t.ok(
    refused.every((r) => /^\d+$/.test(r.retryAfter ?? '')),
    'every 429 has Retry-After in whole seconds',
  );

  // Retry-After is honoured: wait exactly that long (time passing is the subject), then the same key is
  // admitted. Nothing else calls meanwhile, and Redis' clock only moves on: it cannot come early.
  const last = await call(cluster.urls[0]!, cluster.key);
  if (last.status === 429) {
    await sleep(Number(last.retryAfter) * 1_000);
    t.equal((await call(cluster.urls[1]!, cluster.key)).status, 200, 'admitted after Retry-After');
  } else {
    t.equal(last.status, 200);
  }
});

void t.test('concurrency and tokens: exact across three instances', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const gate = await upstreamGate(t);
  const keyPrefix = redisPrefix(t);
  // Six seconds: the token calls below run in one window with seconds to spare on a busy machine.
  const cluster = await startCluster(t, {
    sim,
    redisUrl: TEST_REDIS_URL,
    keyPrefix,
    rateLimit: { backend: 'redis', window: '6s', lease: '5s' },
    keyLimits: { max_concurrent: 3, rate_limit_tpm: 1_000 },
    adjust: (doc) => gate.between(doc, sim.url),
  });
  const { urls, key } = cluster;
  // The shared counts, read where the instances keep them (the rate-limit scripts' keys).
  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(() => redis.disconnect());
  const counts = `${keyPrefix}rl:key:${keyId(key)}`;
  const inFlight = () => redis.zcard(`${counts}:c`);
  const tokensCounted = async () => Number((await redis.get(`${counts}:t:sum`)) ?? 0);

  // Ten calls at once, each held upstream until the others are answered: three run, seven are refused
  // while they do.
  gate.hold((id) => id.startsWith('burst-'));
  const answered: Sent[] = [];
  const burst = Promise.all(
    Array.from({ length: 10 }, async (_, i) => {
      const r = await call(urls[i % 3]!, key, chat('tokens=5'), { 'x-request-id': `burst-${i}` });
      answered.push(r);
      return r;
    }),
  );
  await until(
    () => ({ underWay: gate.waiting.length, answered: answered.length }),
    (s) => s.underWay + s.answered === 10,
    { what: 'every call of the burst answered or under way upstream' },
  );
  gate.release();
  const answers = await burst;
  const refusals = answers.filter((r) => r.status === 429);
  t.equal(answers.filter((r) => r.status === 200).length, 3, 'three in flight');
  t.equal(refusals.length, 7, 'the others refused');
  t.ok(
    refusals.every((r) => r.retryAfter === '1'),
    'Retry-After 1 s',
  );
  // Each call frees its slot just after its last byte (the rate-limit stage's end): awaited on Redis.
  await until(inFlight, (n) => n === 0, { what: 'the slots of the ended calls freed' });
  const again = await Promise.all(urls.map((u) => call(u, key, chat('tokens=5'))));
  t.ok(
    again.every((r) => r.status === 200),
    'the slots are free once the calls ended',
  );

  // Tokens: real usage counts at each call's end; calls start while the window holds < 1,000. The
  // calls above leave the window with their last entry: the count's keys expire then.
  await until(
    () => redis.exists(`${counts}:t`, `${counts}:t:sum`),
    (n) => n === 0,
    {
      what: "the calls' tokens gone from the window",
    },
  );
  const probe = await postJson<{ usage: { total_tokens: number } }>(
    `${urls[0]}/v1/chat/completions`,
    chat('tokens=100'),
    key,
  );
  const perCall = probe.body.usage.total_tokens;
  let admitted = 1;
  for (let i = 1; ; i++) {
    // The last call's tokens are counted just after its last byte: the next starts once they are.
    await until(tokensCounted, (n) => n === admitted * perCall, { what: `${admitted} calls' tokens` });
    const r = await call(urls[i % 3]!, key, chat('tokens=100'));
    if (r.status !== 200) break;
    admitted++;
  }
  t.equal(admitted, Math.ceil(1_000 / perCall), `${perCall} tokens a call: admitted while under 1,000`);
});
