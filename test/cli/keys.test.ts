/** `npm run keys`: the CLI finds the gateway's admin API and token from the same config and data directory. */
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { KeyHasher } from '../../core/keys/api-key';
import { startSimulator } from '../../simulator/server';
import { tempDir, testConfig } from '../helpers/gateway';
import { postJson } from '../helpers/http';
import { belowEphemeral, PortInUse } from '../helpers/ports';
import { listeningOn, runKeysCli, spawnGateway, type GatewayProcess } from '../helpers/process';

const ask = { model: 'modelc-3.6-flash', messages: [{ role: 'user', content: 'hi' }] };

t.test('keys CLI: create, list, disable, enable, delete against a running gateway', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const dir = await tempDir(t);
  const doc = testConfig(sim.url, './data'); // relative to the file, as in the shipped one
  doc.logging = { level: 'info' };
  const file = join(dir, 'gateway.yaml');
  // The CLI gets only what an operator's shell has: the config's location. No token, no port flags.
  const env = { GATEWAY_CONFIG: file };

  // The CLI finds the admin API where the file puts it, so the file names that port: one below the
  // ephemeral range, another when the gateway finds it taken (helpers/ports.ts). The gateway's own
  // port is the system's choice, read from its start-up line.
  let offline: Awaited<ReturnType<typeof runKeysCli>> | undefined;
  const { gw, url } = await belowEphemeral(async (adminPort) => {
    doc.admin = { host: '127.0.0.1', port: adminPort };
    await writeFile(file, stringify(doc));
    offline ??= await runKeysCli(['list'], env); // before the gateway has ever started
    return started(spawnGateway(t, env));
  });
  const chat = `${url}/v1/chat/completions`;
  t.equal(offline?.code, 1);
  t.match(offline?.stderr, /no admin token|cannot reach/, 'a clear message while the gateway is down');

  const created = await runKeysCli(
    ['create', '--description', 'billing service', '--models', 'modelc-3.6-flash'],
    env,
  );
  t.equal(created.code, 0, created.stderr);
  const lines = created.stdout.trimEnd().split('\n');
  const key = lines.at(-1)!;
  t.match(key, /^sk-[A-Za-z0-9_-]{43}$/, 'the full key, alone, on the last line');
  const id = key.slice(0, 11);
  t.equal((await postJson(chat, ask, key)).status, 200, 'the new key works at once');
  t.equal((await postJson(chat, { ...ask, model: 'modela-5.5' }, key)).status, 403, 'limited to its models');

  const listed = await runKeysCli(['list'], env);
  t.equal(listed.code, 0);
  t.match(listed.stdout, new RegExp(`${id}\\s+enabled\\s+modelc-3.6-flash.*billing service`));
  t.notMatch(listed.stdout, key, 'the full key is never shown again');

  t.equal((await runKeysCli(['disable', id], env)).code, 0);
  t.equal((await postJson(chat, ask, key)).status, 403, 'disabled takes effect at once');
  t.equal((await runKeysCli(['enable', id], env)).code, 0);
  t.equal((await postJson(chat, ask, key)).status, 200);
  t.equal((await runKeysCli(['delete', id], env)).code, 0);
  t.equal((await postJson(chat, ask, key)).status, 401, 'deleted takes effect at once');

  const missing = await runKeysCli(['disable', 'sk-NOTAKEY'], env);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /no key with id sk-NOTAKEY/);
  const usage = await runKeysCli(['frobnicate'], env);
  t.equal(usage.code, 1);
  t.match(usage.stderr, /usage: npm run keys/);

  gw.child.kill('SIGTERM');
  t.equal(await gw.exited, 0);
});

/** `gw` and where it listens, once started; PortInUse when it stopped because its admin port was taken. */
async function started(gw: GatewayProcess) {
  try {
    return { gw, ...(await listeningOn(gw)) };
  } catch (e) {
    if (gw.child.exitCode !== null && /the port is already in use/.test(gw.stderr())) {
      throw new PortInUse(gw.stderr());
    }
    throw e;
  }
}

t.test('keys CLI: hash prints a declared key hash with the gateway key secret', async (t) => {
  const key = 'sk-' + 'cliHash0123456789'.repeat(2);
  const env = { GATEWAY_KEY_SECRET: 'cli-secret' };
  const expected = new KeyHasher(Buffer.from('cli-secret')).hash(key);
  const hashed = await runKeysCli(['hash', key], env);
  t.equal(hashed.code, 0, hashed.stderr);
  t.equal(hashed.stdout, `${expected}\n`);
  const bad = await runKeysCli(['hash', 'xk-nope'], env);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /'sk-' \+ 32 to 128/);
});
