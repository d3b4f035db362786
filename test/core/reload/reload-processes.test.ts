/**
 * Reload in real gateway processes: SIGHUP under load loses no request and no usage record, and with
 * Redis a reload asked of one instance is applied by every instance.
 */
import t from 'tap';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startSimulator } from '../../../simulator/server';
import { tempDir, testConfig, type ConfigDoc, type Teardown } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';
import { eventually } from '../../helpers/wait';
import { listeningOn, spawnGateway } from '../../helpers/process';
import { redisPrefix, TEST_REDIS_URL } from '../../helpers/redis';
import { adminCall } from '../../helpers/reload';

const KEY = 'sk-' + 'reload0123456789'.repeat(3);
const ADMIN_TOKEN = 'admin-token-for-reload-tests';
const ask = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi #sim tokens=2' }] };
/** Clients sending requests one after another while SIGHUP reloads the gateway. */
const CLIENTS = 16;

interface Instance {
  readonly url: string;
  readonly adminUrl: string;
  readonly file: string;
  readonly process: ReturnType<typeof spawnGateway>;
}

async function admin<T>(instance: Instance, method: 'GET' | 'POST', path: string): Promise<T> {
  return (await adminCall<T>({ adminUrl: instance.adminUrl, adminToken: ADMIN_TOKEN }, method, path)).body;
}

interface Status {
  version: string;
  reloads: number;
  trigger: string;
  instances: { instance: string; version: string }[];
}

/** A gateway process reading its own gateway.yaml (watch off: only SIGHUP, the admin call or Redis reload it). */
async function spawnInstance(t: Teardown, doc: ConfigDoc): Promise<Instance> {
  const dir = await tempDir(t);
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, stringify({ ...doc, reload: { watch: false } }));
  const process = spawnGateway(t, {
    GATEWAY_CONFIG: file,
    GATEWAY_DATA_DIR: join(dir, 'data'),
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    RELOAD_KEY: KEY,
    PORT: '0',
    ADMIN_PORT: '0',
  });
  return { ...(await listeningOn(process)), file, process };
}

function baseDoc(simUrl: string): ConfigDoc {
  const doc = testConfig(simUrl, './data');
  doc.logging = { level: 'info' };
  doc.keys = { declared: [{ name: 'reload', secret: '${RELOAD_KEY}' }] };
  return doc;
}

t.test('SIGHUP under load: every request answered, every usage record written once', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const doc = baseDoc(sim.url);
  const gw = await spawnInstance(t, doc);
  const statuses: number[] = [];
  const ids: string[] = [];
  let signalled = false;
  // Requests are sent all the while the reloads happen, and at least 300 of them.
  const client = async () => {
    while (!signalled || statuses.length < 300) {
      const res = await postJson(`${gw.url}/v1/chat/completions`, ask, KEY);
      statuses.push(res.status);
      ids.push(res.headers.get('x-request-id') ?? '');
    }
  };
  // Each change is signalled and waited for, so five files make five reloads (a reload reads the file as
  // it is then: two changes signalled closer than a reload takes would make one). Before each, requests
  // are answered on the configuration of the one before: as many as there are clients.
  const signals = (async () => {
    for (let i = 1; i <= 5; i++) {
      const answered = statuses.length;
      await eventually(() => statuses.length >= answered + CLIENTS, 10_000, 'requests between reloads');
      const text = stringify({
        ...doc,
        reload: { watch: false },
        prices: { 'modela-*': { input_per_mtok: i } },
      });
      await writeFile(gw.file, text);
      gw.process.child.kill('SIGHUP');
      const version = createHash('sha256').update(text).digest('hex').slice(0, 12);
      await eventually(
        async () => (await admin<Status>(gw, 'GET', '/admin/config')).version === version,
        10_000,
        `reload ${i}`,
      );
    }
  })().finally(() => (signalled = true));
  await Promise.all([...Array.from({ length: CLIENTS }, client), signals]);
  const total = statuses.length;
  t.comment(`${total} requests across 5 reloads`);
  t.same(
    statuses.filter((s) => s !== 200),
    [],
    'no request failed',
  );
  t.match(await admin<Status>(gw, 'GET', '/admin/config'), { trigger: 'signal', reloads: 5 });
  let records: { id: string }[] = [];
  await eventually(async () => {
    records = (
      await admin<{ data: { id: string }[] }>(gw, 'GET', '/admin/usage?key_id=declared:reload&limit=1000')
    ).data;
    return records.length >= total;
  }, 10_000);
  t.equal(records.length, total, 'one record per request');
  t.same(new Set(records.map((r) => r.id)), new Set(ids), 'and exactly the requests made');
  t.equal(gw.process.child.exitCode, null, 'SIGHUP no longer stops the gateway');
  gw.process.child.kill('SIGTERM');
  t.equal(await gw.process.exited, 0);
});

t.test('with Redis, a reload asked of one instance is applied by all three', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const doc = baseDoc(sim.url);
  doc.redis = { url: TEST_REDIS_URL, key_prefix: redisPrefix(t) };
  const instances = await Promise.all([0, 1, 2].map(() => spawnInstance(t, doc)));
  const versions = async () =>
    Promise.all(instances.map(async (i) => (await admin<Status>(i, 'GET', '/admin/config')).version));
  const [before] = await versions();
  await eventually(
    async () => (await admin<Status>(instances[0]!, 'GET', '/admin/config')).instances.length === 3,
    10_000,
  );

  const changed = { ...doc, reload: { watch: false }, prices: { 'modela-*': { input_per_mtok: 7 } } };
  for (const i of instances) await writeFile(i.file, stringify(changed));
  const reload = await admin<Status & { applied: boolean }>(instances[0]!, 'POST', '/admin/reload');
  t.equal(reload.applied, true);
  t.not(reload.version, before);
  await eventually(async () => (await versions()).every((v) => v === reload.version), 10_000);
  t.pass('every instance runs the new version');
  for (const [n, i] of instances.entries()) {
    const status = await admin<Status>(i, 'GET', '/admin/config');
    t.equal(status.trigger, n === 0 ? 'admin' : 'announce', `instance ${n} reloaded on ${status.trigger}`);
  }
  await eventually(async () => {
    const listed = (await admin<Status>(instances[2]!, 'GET', '/admin/config')).instances;
    return listed.length === 3 && listed.every((e) => e.version === reload.version);
  }, 10_000);
  t.pass('GET /admin/config on any instance lists one version for all three');
});
