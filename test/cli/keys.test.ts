/** `npm run keys`: the CLI finds the gateway's admin API and token from the same config and data directory. */
import t from 'tap';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { PublicKey } from '../../core/admin/wire';
import { KeyHasher } from '../../core/keys/api-key';
import { startSimulator } from '../../simulator/server';
import { tempDir, testConfig } from '../helpers/gateway';
import { postJson } from '../helpers/http';
import { belowEphemeral, PortInUse } from '../helpers/ports';
import { listeningOn, runKeysCli, spawnGateway, type GatewayProcess } from '../helpers/process';

const ask = { model: 'modelc-3.6-flash', messages: [{ role: 'user', content: 'hi' }] };

t.test('keys CLI: create, update, list, disable, enable, delete against a running gateway', async (t) => {
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
  t.match(listed.stdout, new RegExp(`${id}\\s+enabled\\s+modelc-3.6-flash\\s+all tools\\s+no guardrails\\s`));
  t.notMatch(listed.stdout, key, 'the full key is never shown again');

  // Guardrails: given on create, changed and cleared by update, shown by each and by list.
  const guarded = await runKeysCli(
    ['create', '--description', 'support bot', '--guardrails', 'pii-mask, no.secrets'],
    env,
  );
  t.equal(guarded.code, 0, guarded.stderr);
  const guardedId = guarded.stdout.trimEnd().split('\n').at(-1)!.slice(0, 11);
  t.match(
    guarded.stdout,
    new RegExp(`created ${guardedId}\\s+enabled\\s+all models\\s+all tools\\s+pii-mask,no\\.secrets\\s`),
  );
  const stored = async (keyId = guardedId) => {
    const token = (await readFile(join(dir, 'data', 'admin-token'), 'utf8')).trim();
    const port = (doc.admin as { port: number }).port;
    const res = await fetch(`http://127.0.0.1:${port}/admin/keys/${keyId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return (await res.json()) as PublicKey;
  };
  t.strictSame((await stored()).guardrails, ['pii-mask', 'no.secrets'], 'stored as given, names trimmed');
  const updated = await runKeysCli(
    ['update', guardedId, '--guardrails', 'strict', '--description', 'support bot v2'],
    env,
  );
  t.equal(updated.code, 0, updated.stderr);
  t.match(
    updated.stdout,
    new RegExp(`^updated ${guardedId}\\s+enabled\\s+all models\\s+all tools\\s+strict\\s.*support bot v2`),
  );
  t.strictSame((await stored()).guardrails, ['strict'], 'update replaced the list');
  t.match(
    (await runKeysCli(['list'], env)).stdout,
    new RegExp(`${guardedId}\\s+enabled\\s+all models\\s+all tools\\s+strict\\s.*support bot v2`),
    'list shows them',
  );
  const models = await runKeysCli(['update', guardedId, '--models', 'modela-5.5'], env);
  t.match(
    models.stdout,
    /modela-5\.5\s+all tools\s+strict\s/,
    'an update leaves the options not given alone',
  );
  const cleared = await runKeysCli(['update', guardedId, '--guardrails', ''], env);
  t.match(
    cleared.stdout,
    new RegExp(`${guardedId}\\s+enabled\\s+modela-5\\.5\\s+all tools\\s+no guardrails\\s`),
  );
  t.notOk('guardrails' in (await stored()), 'an empty --guardrails clears them');
  const badName = await runKeysCli(['update', guardedId, '--guardrails', 'pii mask'], env);
  t.equal(badName.code, 1);
  t.match(badName.stderr, /field 'guardrails\.0' must be a guardrail name/, "the admin API's reason");
  const noId = await runKeysCli(['update', '--guardrails', 'strict'], env);
  t.equal(noId.code, 1);
  t.match(noId.stderr, /usage: npm run keys/, 'update needs the key id');

  // Allowed tools: given on create, changed and cleared by update, shown by each and by list.
  const agent = await runKeysCli(
    ['create', '--description', 'agent', '--allowed-tools', 'demo__add, search__*'],
    env,
  );
  t.equal(agent.code, 0, agent.stderr);
  const agentId = agent.stdout.trimEnd().split('\n').at(-1)!.slice(0, 11);
  t.match(
    agent.stdout,
    new RegExp(`created ${agentId}\\s+enabled\\s+all models\\s+demo__add,search__\\*\\s+no guardrails\\s`),
  );
  t.strictSame((await stored(agentId)).allowed_tools, ['demo__add', 'search__*'], 'stored as given, trimmed');
  const narrowed = await runKeysCli(['update', agentId, '--allowed-tools', '*__read'], env);
  t.equal(narrowed.code, 0, narrowed.stderr);
  t.match(narrowed.stdout, new RegExp(`^updated ${agentId}\\s+enabled\\s+all models\\s+\\*__read\\s`));
  t.strictSame((await stored(agentId)).allowed_tools, ['*__read'], 'update replaced the list');
  t.match(
    (await runKeysCli(['list'], env)).stdout,
    new RegExp(`${agentId}\\s+enabled\\s+all models\\s+\\*__read\\s.*agent`),
    'list shows them',
  );
  const described = await runKeysCli(['update', agentId, '--description', 'agent v2'], env);
  t.match(described.stdout, /\*__read\s.*agent v2/, 'an update without the option leaves them alone');
  const allTools = await runKeysCli(['update', agentId, '--allowed-tools', ''], env);
  t.match(allTools.stdout, new RegExp(`${agentId}\\s+enabled\\s+all models\\s+all tools\\s`));
  t.notOk('allowed_tools' in (await stored(agentId)), 'an empty --allowed-tools allows every tool again');
  const badTool = await runKeysCli(['update', agentId, '--allowed-tools', 'demo add'], env);
  t.equal(badTool.code, 1);
  t.match(badTool.stderr, /field 'allowed_tools\.0' must be a tool name or glob/, "the admin API's reason");

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
