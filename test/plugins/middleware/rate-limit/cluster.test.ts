/**
 * Three real gateway processes sharing Redis and one key: limits hold across them exactly. The window is
 * shortened to seconds (the stage's `window` option) so a test sees whole windows pass.
 */
import t from 'tap';
import { startSimulator } from '../../../../simulator/server';
import { startCluster } from '../../../helpers/cluster';
import { postJson } from '../../../helpers/http';
import { redisPrefix, TEST_REDIS_URL } from '../../../helpers/redis';
import { sleep } from './limiter-cases';

const chat = (directives = '') => ({
  model: 'modelc-3.6-flash',
  messages: [{ role: 'user', content: `hi${directives ? `\n#sim ${directives}` : ''}` }],
});

interface Sent {
  readonly sent: number;
  readonly received: number;
  readonly status: number;
  readonly retryAfter: string | null;
}

async function call(url: string, key: string, body = chat()): Promise<Sent> {
  const sent = Date.now();
  const res = await postJson(`${url}/v1/chat/completions`, body, key);
  return { sent, received: Date.now(), status: res.status, retryAfter: res.headers.get('retry-after') };
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
        if (r.status === 429) await sleep(100);
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

  // Retry-After is honoured: wait exactly that long, then the same key is admitted.
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
  const cluster = await startCluster(t, {
    sim,
    redisUrl: TEST_REDIS_URL,
    keyPrefix: redisPrefix(t),
    rateLimit: { backend: 'redis', window: '10s', lease: '5s' },
    keyLimits: { max_concurrent: 3, rate_limit_tpm: 1_000 },
  });
  const { urls, key } = cluster;

  // Ten calls at once, each held 1.5 s upstream: three run, seven are refused at once.
  const burst = await Promise.all(
    Array.from({ length: 10 }, (_, i) => call(urls[i % 3]!, key, chat('latency_ms=1500 tokens=5'))),
  );
  t.equal(burst.filter((r) => r.status === 200).length, 3, 'three in flight');
  t.equal(burst.filter((r) => r.status === 429).length, 7, 'the others refused');
  t.ok(
    burst.filter((r) => r.status === 429).every((r) => r.retryAfter === '1'),
    'Retry-After 1 s',
  );
  const again = await Promise.all(urls.map((u) => call(u, key, chat('tokens=5'))));
  t.ok(
    again.every((r) => r.status === 200),
    'the slots are free once the calls ended',
  );

  // Tokens: real usage counts at each call's end; calls start while the window holds < 1,000.
  await sleep(10_500); // the burst's tokens leave the window
  const probe = await postJson<{ usage: { total_tokens: number } }>(
    `${urls[0]}/v1/chat/completions`,
    chat('tokens=100'),
    key,
  );
  const perCall = probe.body.usage.total_tokens;
  let admitted = 1;
  for (let i = 1; ; i++) {
    await sleep(50); // the last call's tokens are counted just after its last byte
    const r = await call(urls[i % 3]!, key, chat('tokens=100'));
    if (r.status !== 200) break;
    admitted++;
  }
  t.equal(admitted, Math.ceil(1_000 / perCall), `${perCall} tokens a call: admitted while under 1,000`);
});
