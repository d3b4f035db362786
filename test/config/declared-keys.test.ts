/**
 * `keys.declared` in gateway.yaml: what start-up refuses (a secret without `sk-` or too short, both or
 * neither of secret and hash, a name or a key given twice, a bad list of guardrails or of allowed tools,
 * a key a stored key already has), each with the entry's path and name, and never the secret in the
 * message.
 */
import 'reflect-metadata';
import '../helpers/load-plugins';
import t, { type Test } from 'tap';
import { ConfigError } from '../../config/errors';
import { buildConfig } from '../../config/load';
import { KeyHasher } from '../../core/keys/api-key';
import { startGateway } from '../../core/boot/gateway';
import { tempDir, testConfig } from '../helpers/gateway';

const SECRET_A = 'sk-' + 'a1B2c3D4e5'.repeat(4);
const SECRET_B = 'sk-' + 'Z9y8X7w6v5'.repeat(4);
const SERVER_SECRET = 'declared-test-server-secret';

/** Starts a gateway with these declared keys over `dir`; the error it stops with, if any. */
async function startWith(dir: string, declared: unknown[]): Promise<unknown> {
  const doc = { ...testConfig('http://127.0.0.1:1', dir), keys: { declared } };
  try {
    const gw = await startGateway(buildConfig(doc, {}), { env: { GATEWAY_KEY_SECRET: SERVER_SECRET } });
    await gw.close(0);
    return undefined;
  } catch (e) {
    return e;
  }
}

async function refused(t: Test, declared: unknown[], path: string, reason: RegExp): Promise<void> {
  const error = await startWith(await tempDir(t), declared);
  t.ok(error instanceof ConfigError, `a ConfigError for ${path}`);
  t.equal((error as ConfigError).path, path);
  t.match((error as ConfigError).reason, reason);
  for (const secret of [SECRET_A, SECRET_B, 'xk-' + SECRET_A.slice(3)])
    t.notMatch((error as Error).message, secret, 'the secret is not in the message');
}

t.test('start-up refuses bad declared keys, naming the entry', async (t) => {
  await refused(
    t,
    [{ name: 'team-a', secret: 'xk-' + SECRET_A.slice(3) }],
    'keys.declared[0].secret',
    /declared key 'team-a': the secret must start with 'sk-'/,
  );
  await refused(
    t,
    [{ name: 'team-a', secret: 'sk-short' }],
    'keys.declared[0].secret',
    /'team-a'.*32 to 128/,
  );
  await refused(t, [{ name: 'team-a' }], 'keys.declared[0].secret', /'team-a': give exactly one/);
  const hash = new KeyHasher(Buffer.from(SERVER_SECRET)).hash(SECRET_A);
  await refused(
    t,
    [{ name: 'team-a', secret: SECRET_A, hash }],
    'keys.declared[0].hash',
    /'team-a': give exactly one/,
  );
  await refused(t, [{ name: 'team-a', hash: 'not-a-hash' }], 'keys.declared[0].hash', /43 base64url/);
  await refused(t, [{ name: 'Team A', secret: SECRET_A }], 'keys.declared[0].name', /a-z, 0-9/);
  await refused(
    t,
    [{ name: 'team-a', secret: SECRET_A, guardrails: ['pii-mask', 'pii mask'] }],
    'keys.declared[0].guardrails[1]',
    /1 to 64 of A-Z, a-z, 0-9, '_', '.' and '-'/,
  );
  await refused(
    t,
    [{ name: 'team-a', secret: SECRET_A, guardrails: ['n'.repeat(65)] }],
    'keys.declared[0].guardrails[0]',
    /guardrail name: 1 to 64/,
  );
  await refused(
    t,
    [{ name: 'team-a', secret: SECRET_A, guardrails: ['strict', 'pii-mask', 'strict'] }],
    'keys.declared[0].guardrails',
    /names 'strict' twice/,
  );
  await refused(
    t,
    [{ name: 'team-a', secret: SECRET_A, guardrails: Array.from({ length: 33 }, (_, i) => `r${i}`) }],
    'keys.declared[0].guardrails',
    /at most 32 distinct guardrail names/,
  );
  await refused(
    t,
    [{ name: 'team-a', secret: SECRET_A, guardrails: 'strict' }],
    'keys.declared[0].guardrails',
    /expected array/,
  );
  await refused(
    t,
    [{ name: 'team-a', secret: SECRET_A, allowed_tools: ['search__*', 'demo add'] }],
    'keys.declared[0].allowed_tools[1]',
    /a tool name or glob: 1 to 160 of A-Z, a-z, 0-9, '_', '.', '-' and '\*'/,
  );
  await refused(
    t,
    [{ name: 'team-a', secret: SECRET_A, allowed_tools: ['t'.repeat(161)] }],
    'keys.declared[0].allowed_tools[0]',
    /tool name or glob: 1 to 160/,
  );
  await refused(
    t,
    [{ name: 'team-a', secret: SECRET_A, allowed_tools: ['demo__*', 'a__b', 'demo__*'] }],
    'keys.declared[0].allowed_tools',
    /lists 'demo__\*' twice/,
  );
  await refused(
    t,
    [
      {
        name: 'team-a',
        secret: SECRET_A,
        allowed_tools: Array.from({ length: 101 }, (_, i) => `s__t${i}`),
      },
    ],
    'keys.declared[0].allowed_tools',
    /at most 100 distinct tool names or globs/,
  );
  await refused(
    t,
    [{ name: 'team-a', secret: SECRET_A, allowed_tools: 'demo__add' }],
    'keys.declared[0].allowed_tools',
    /expected array/,
  );
  await refused(
    t,
    [
      { name: 'team-a', secret: SECRET_A },
      { name: 'team-a', secret: SECRET_B },
    ],
    'keys.declared[1].name',
    /'team-a' is declared twice \(entries 0 and 1\)/,
  );
  await refused(
    t,
    [
      { name: 'team-a', secret: SECRET_A },
      { name: 'team-b', secret: SECRET_A },
    ],
    'keys.declared[1]',
    /'team-b' has the same key as 'team-a' \(keys.declared\[0\]\)/,
  );
  await refused(
    t,
    [
      { name: 'team-a', secret: SECRET_A },
      { name: 'team-b', hash },
    ],
    'keys.declared[1]',
    /'team-b' has the same key as 'team-a'/,
  );
});

t.test('start-up refuses a declared key that a stored key already is', async (t) => {
  const dir = await tempDir(t);
  const first = await startGateway(buildConfig(testConfig('http://127.0.0.1:1', dir), {}), {
    env: { GATEWAY_KEY_SECRET: SERVER_SECRET },
  });
  const stored = first.firstKey!;
  await first.close(0);
  const error = await startWith(dir, [
    { name: 'ok', secret: SECRET_A },
    { name: 'team-b', secret: stored.key },
  ]);
  t.ok(error instanceof ConfigError);
  t.equal((error as ConfigError).path, 'keys.declared[1]');
  t.match(
    (error as ConfigError).reason,
    `'declared:team-b' has the same key as the stored key ${stored.record.id}`,
  );
  t.equal(await startWith(dir, [{ name: 'ok', secret: SECRET_A }]), undefined, 'starts once it is fixed');
});
