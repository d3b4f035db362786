/**
 * OpenAI's rate-limit headers, read by the `openai` SDK as users read them (`withResponse()`): on every
 * admitted call, JSON and streamed, counted down exactly by the same decision that admitted the call;
 * on the 429 that follows, beside Retry-After; none for a kind of limit the key does not have. Then the
 * same over three gateway processes sharing Redis, and the failed-auth count shared by them.
 */
import t from 'tap';
import OpenAI from 'openai';
import { Redis } from 'ioredis';
import { keyId } from '../../core/keys/api-key';
import { startSimulator } from '../../simulator/server';
import { startCluster, startRedisCluster } from '../helpers/cluster';
import { startTestGateway } from '../helpers/gateway';
import { postJson } from '../helpers/http';
import { redisPrefix, TEST_REDIS_URL } from '../helpers/redis';
import { until } from '../helpers/wait';

const ask = { model: 'modela-5.5', messages: [{ role: 'user' as const, content: 'hi #sim tokens=4' }] };

interface Seen {
  readonly remainingRequests: string | null;
  readonly remainingTokens: string | null;
  readonly totalTokens: number;
}

async function call(client: OpenAI, requestId?: string): Promise<Seen & { headers: Headers }> {
  const headers = requestId ? { 'x-request-id': requestId } : {};
  const { data, response } = await client.chat.completions.create(ask, { headers }).withResponse();
  return {
    headers: response.headers,
    remainingRequests: response.headers.get('x-ratelimit-remaining-requests'),
    remainingTokens: response.headers.get('x-ratelimit-remaining-tokens'),
    totalTokens: data.usage?.total_tokens ?? 0,
  };
}

/** The SDK's error for a refused call, with the headers it carried. */
async function refusal(client: OpenAI): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await client.chat.completions.create(ask);
  } catch (e) {
    if (e instanceof OpenAI.APIError) return e;
    throw e;
  }
  throw new Error('the call was admitted');
}

t.test(
  'one instance: counted down exactly, JSON and streamed, then a 429 with the same headers',
  async (t) => {
    const gw = await startTestGateway(t);
    const TPM = 10_000;
    const key = await gw.createKey({ rate_limit_rpm: 5, rate_limit_tpm: TPM });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });

    const first = await call(client, `headers-${process.pid}-0`);
    t.equal(first.headers.get('x-ratelimit-limit-requests'), '5');
    t.equal(first.headers.get('x-ratelimit-reset-requests'), '1m0s', 'until this call leaves the minute');
    t.equal(first.headers.get('x-ratelimit-limit-tokens'), String(TPM));
    t.equal(first.remainingTokens, String(TPM), 'no tokens spent before the first call');
    t.equal(first.headers.get('x-ratelimit-reset-tokens'), '0s', 'an empty token window');

    let spent = first.totalTokens;
    const remaining = [first.remainingRequests];
    for (let i = 0; i < 3; i++) {
      // The previous call's tokens are counted as it ends, in the same step that queues its usage
      // record: the next call starts once that record is there.
      const previous = `headers-${process.pid}-${i}`;
      await until(
        () => gw.gateway.usage.list({ id: previous }),
        (records) => records.length === 1,
        { what: `the end of call ${i + 1}` },
      );
      const seen = await call(client, `headers-${process.pid}-${i + 1}`);
      remaining.push(seen.remainingRequests);
      t.equal(seen.remainingTokens, String(TPM - spent), `call ${i + 2}: the tokens of the calls before it`);
      spent += seen.totalTokens;
    }

    const { data: stream, response } = await client.chat.completions
      .create({ ...ask, stream: true })
      .withResponse();
    // Read before any event is: the headers came first.
    remaining.push(response.headers.get('x-ratelimit-remaining-requests'));
    t.match(response.headers.get('content-type'), /^text\/event-stream/, 'a stream');
    let chunks = 0;
    for await (const chunk of stream) chunks += chunk.object === 'chat.completion.chunk' ? 1 : 0;
    t.ok(chunks > 0, `then its ${chunks} chunks`);
    t.strictSame(
      remaining,
      ['4', '3', '2', '1', '0'],
      'remaining requests: 4, 3, 2, 1, 0 (the fifth streamed)',
    );

    const refused = await refusal(client);
    t.equal(refused.status, 429);
    t.ok(Number(refused.headers?.get('retry-after')) >= 1, 'Retry-After kept');
    t.equal(refused.headers?.get('x-ratelimit-remaining-requests'), '0', 'the 429 carries the headers');
    t.equal(refused.headers?.get('x-ratelimit-limit-requests'), '5');

    const models = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    t.equal(models.status, 429, "the gateway's own endpoints count too");
    t.equal(models.headers.get('x-ratelimit-remaining-requests'), '0', 'and answer with the headers');

    const noTpm = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: await gw.createKey({}), maxRetries: 0 });
    const plain = await call(noTpm);
    t.equal(plain.headers.get('x-ratelimit-limit-requests'), '100000', "the stage's default limit applies");
    t.equal(plain.headers.get('x-ratelimit-limit-tokens'), null, 'no token limit: no token headers');
    t.equal(plain.remainingTokens, null);
    const list = await noTpm.models.list().withResponse();
    t.equal(list.response.status, 200, "the gateway's own JSON answer");
    t.equal(
      list.response.headers.get('x-ratelimit-remaining-requests'),
      '99998',
      'counted with the chat call',
    );
  },
);

t.test('three instances on Redis: one count, exact across them', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const keyPrefix = redisPrefix(t);
  const cluster = await startCluster(t, {
    sim,
    redisUrl: TEST_REDIS_URL,
    keyPrefix,
    rateLimit: { backend: 'redis' },
    keyLimits: { rate_limit_rpm: 9, rate_limit_tpm: 50_000 },
  });
  const clients = cluster.urls.map(
    (url) => new OpenAI({ baseURL: `${url}/v1`, apiKey: cluster.key, maxRetries: 0 }),
  );
  // The shared token count, where the instances keep it: each call's tokens go in just after it ends.
  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(() => redis.disconnect());
  const tokenSum = `${keyPrefix}rl:key:${keyId(cluster.key)}:t:sum`;
  const remaining: (string | null)[] = [];
  let spent = 0;
  for (let i = 0; i < 9; i++) {
    const seen = await call(clients[i % 3]!);
    remaining.push(seen.remainingRequests);
    t.equal(seen.remainingTokens, String(50_000 - spent), `call ${i + 1}: tokens as counted by all three`);
    spent += seen.totalTokens;
    await until(
      async () => Number((await redis.get(tokenSum)) ?? 0),
      (counted) => counted === spent,
      { what: `the tokens of call ${i + 1} counted` },
    );
  }
  t.strictSame(remaining, ['8', '7', '6', '5', '4', '3', '2', '1', '0'], 'round-robin over three: 8 … 0');
  for (const client of clients) {
    const refused = await refusal(client);
    t.equal(refused.status, 429, 'each instance refuses the tenth');
    t.equal(refused.headers?.get('x-ratelimit-remaining-requests'), '0');
  }
});

t.test('three instances on Redis share the failed-auth count', async (t) => {
  const cluster = await startRedisCluster(t, {
    rateLimit: { backend: 'redis' },
    adjust: (doc) => {
      doc.keys = { failed_auth_limit: 6, failed_auth_window: '60s' };
    },
  });
  const wrong = 'sk-' + 'q'.repeat(43);
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) {
    statuses.push((await postJson(`${cluster.urls[i % 3]!}/v1/chat/completions`, ask, wrong)).status);
  }
  t.strictSame(
    statuses,
    [...Array<number>(6).fill(401), ...Array<number>(6).fill(429)],
    'six 401s in all, not six each',
  );
  for (const url of cluster.urls) {
    t.equal(
      (await postJson(`${url}/v1/chat/completions`, ask, cluster.key)).status,
      200,
      'a correct key: 200',
    );
  }
});
