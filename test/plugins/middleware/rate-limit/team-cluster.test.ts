/**
 * A team's rpm over three real gateway processes sharing Redis: two keys of the team, calling through
 * every instance, share one count, exact across them, and every instance's 429 names the team's limit.
 */
import t from 'tap';
import { startRedisCluster } from '../../../helpers/cluster';
import { postJson } from '../../../helpers/http';

const ask = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };

void t.test("two keys of a team over three instances share the team's rpm", async (t) => {
  const LIMIT = 6;
  const cluster = await startRedisCluster(t, {
    rateLimit: { backend: 'redis' },
    team: { rate_limit_rpm: LIMIT },
  });
  const keys = [cluster.key, cluster.teamMateKey!];
  const call = (i: number, key = keys[i % 2]!) =>
    postJson(`${cluster.urls[i % 3]}/v1/chat/completions`, ask, key);
  for (let i = 0; i < LIMIT; i++) {
    const res = await call(i);
    t.equal(res.status, 200, `call ${i + 1} of ${LIMIT} (key ${(i % 2) + 1}, instance ${(i % 3) + 1})`);
    t.equal(
      res.headers.get('x-ratelimit-remaining-requests'),
      String(LIMIT - 1 - i),
      'the team binds: one count',
    );
  }
  for (let i = 0; i < 6; i++) {
    const res = await call(i);
    t.equal(res.status, 429, `refused on instance ${(i % 3) + 1} for key ${(i % 2) + 1}`);
    const message = (res.body.error as { message?: string } | undefined)?.message ?? '';
    t.match(message, /team's rate limit reached/, 'the 429 names the team');
  }
  const outside = await postJson(`${cluster.urls[0]}/v1/chat/completions`, ask, cluster.probeKey);
  t.equal(outside.status, 200, 'a key outside the team is not counted with it');
});
