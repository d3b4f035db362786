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
import { startSimulator, type RunningSimulator } from '../../../simulator/server';

const CHAT = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };

async function gatewayOn(t: Teardown, sim: RunningSimulator, prefix: string) {
  const doc = testConfig(sim.url, await tempDir(t));
  doc.redis = { url: TEST_REDIS_URL, key_prefix: prefix };
  doc.resilience = { ejection: { consecutive_failures: 5, base: '5s' } };
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
  let status = 0;
  for (let i = 0; i < 50 && status !== 503; i++) {
    const res = await chat(b);
    status = res.status;
    if (status === 503)
      t.equal(((await res.json()) as { error: { code: string } }).error.code, 'upstream_unavailable');
    else await new Promise((r) => setTimeout(r, 20));
  }
  t.equal(status, 503, 'b leaves out the upstream a ejected');
  const c = await gatewayOn(t, sim, prefix);
  const late = await chat(c);
  t.equal(late.status, 503, 'an instance started later reads the running ejection');
  t.match(late.headers.get('retry-after'), /^[1-5]$/);
  t.ok(hits(sim) - before <= 1, 'neither b nor c sent the ejected upstream more than a request in flight');
});
