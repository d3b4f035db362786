/**
 * Three gateway processes from one gateway.yaml, each with its own data directory and no shared store:
 * all accept the same declared key. A key declared by its hash needs the same GATEWAY_KEY_SECRET on each
 * (the hash is an HMAC with it); one declared by its secret works whatever the instance's key secret.
 */
import t from 'tap';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { KeyHasher } from '../../core/keys/api-key';
import { startSimulator } from '../../simulator/server';
import { tempDir, testConfig } from '../helpers/gateway';
import { getJson, postJson } from '../helpers/http';
import { listeningOn, spawnGateway } from '../helpers/process';

const TEAM_A = 'sk-' + 'shared0123456789'.repeat(3);
const HASHED = 'sk-' + 'hashed0123456789'.repeat(3);
const SHARED_SECRET = 'shared-server-secret';
const ask = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };

t.test('three instances accept the same declared keys', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const dir = await tempDir(t);
  const doc = testConfig(sim.url, './data');
  doc.logging = { level: 'info' };
  doc.keys = {
    declared: [
      { name: 'team-a', secret: '${TEAM_A_KEY}' },
      { name: 'hashed', hash: new KeyHasher(Buffer.from(SHARED_SECRET)).hash(HASHED) },
    ],
  };
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, stringify(doc));

  const keySecrets = [SHARED_SECRET, SHARED_SECRET, 'another-server-secret'];
  const urls = await Promise.all(
    keySecrets.map(async (secret, i) => {
      const gw = spawnGateway(t, {
        GATEWAY_CONFIG: file,
        GATEWAY_DATA_DIR: join(dir, `data-${i}`),
        GATEWAY_KEY_SECRET: secret,
        TEAM_A_KEY: TEAM_A,
        PORT: '0',
        ADMIN_PORT: '0',
      });
      const { url, adminUrl } = await listeningOn(gw);
      // Asked of the store, not only of stdout, where a key would be printed after the lines awaited.
      const token = (await readFile(join(dir, `data-${i}`, 'admin-token'), 'utf8')).trim();
      const stored = await getJson<{ data: unknown[] }>(`${adminUrl}/admin/keys`, token);
      t.strictSame(stored.body.data, [], 'no surprise stored key');
      t.notMatch(gw.stdout(), /First start: created API key/, 'none printed');
      return `${url}/v1/chat/completions`;
    }),
  );
  for (const [i, url] of urls.entries()) {
    t.equal((await postJson(url, ask, TEAM_A)).status, 200, `instance ${i}: the declared secret works`);
  }
  t.equal((await postJson(urls[0]!, ask, HASHED)).status, 200, 'by hash: works with the same key secret');
  t.equal((await postJson(urls[1]!, ask, HASHED)).status, 200);
  t.equal((await postJson(urls[2]!, ask, HASHED)).status, 401, 'and not with another');
});
