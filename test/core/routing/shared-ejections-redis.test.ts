/**
 * Ejections shared over Redis: an upstream ejected by one instance is left out by another at once (pub/sub)
 * and by an instance started later (the stored ejection). Real gateways, the machine's Redis.
 */
import t from 'tap';
// First: it loads reflect-metadata and the plugins, which the gateway's modules need.
import { tempDir, testConfig, type Teardown } from '../../helpers/gateway';
import { buildConfig } from '../../../config/load';
import { startGateway, type RunningGateway } from '../../../core/boot/gateway';
import { redisPrefix, TEST_REDIS_URL } from '../../helpers/redis';
import { adminCall } from '../../helpers/reload';
import { until } from '../../helpers/wait';
import { startSimulator, type RunningSimulator } from '../../../simulator/server';

const CHAT = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };
const EJECTION_S = 30;

type Upstreams = { data: Record<string, { ejected_until: string | null }> };

async function gatewayOn(t: Teardown, sim: RunningSimulator, prefix: string) {
  const doc = testConfig(sim.url, await tempDir(t));
  doc.redis = { url: TEST_REDIS_URL, key_prefix: prefix };
  // Long enough to still run when an instance started later (seconds, on a loaded machine) reads it.
  doc.resilience = { ejection: { consecutive_failures: 5, base: `${EJECTION_S}s` } };
  const gateway = await startGateway(buildConfig(doc, {}));
  t.teardown(() => gateway.close(1_000));
  const key = gateway.firstKey?.key ?? (await gateway.keys.create({})).key;
  return { gateway, key };
}

const chat = (gw: { gateway: RunningGateway; key: string }): Promise<Response> =>
  fetch(`${gw.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(CHAT),
  });

const hits = (sim: RunningSimulator): number => sim.log.list().length;

t.test('an ejection on one instance applies on the others, and on one started later', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const prefix = redisPrefix(t);
  const a = await gatewayOn(t, sim, prefix);
  const b = await gatewayOn(t, sim, prefix);
  t.equal((await chat(b)).status, 200, 'b serves while the upstream is healthy');
  sim.faults.add({ fault: { status: 503 } });
  for (let i = 0; i < 5; i++) t.equal((await chat(a)).status, 503, 'the upstream 503 passes through');
  const before = hits(sim);
  // b hears of it over pub/sub: its own view says when (asking it sends nothing upstream).
  await until(
    () => adminCall<Upstreams>(b.gateway, 'GET', '/admin/upstreams'),
    ({ body }) => typeof body.data['modela-main']?.ejected_until === 'string',
    { what: "b applying a's ejection" },
  );
  const res = await chat(b);
  t.equal(res.status, 503, 'b leaves out the upstream a ejected');
  t.equal(((await res.json()) as { error: { code: string } }).error.code, 'upstream_unavailable');
  const c = await gatewayOn(t, sim, prefix);
  const late = await chat(c);
  t.equal(late.status, 503, 'an instance started later reads the running ejection');
  const retryAfter = Number(late.headers.get('retry-after'));
  t.ok(retryAfter >= 1 && retryAfter <= EJECTION_S, `retry after the rest of it (${retryAfter} s)`);
  t.ok(hits(sim) - before <= 1, 'neither b nor c sent the ejected upstream more than a request in flight');
});
