/**
 * The Portkey peer: each case addressed to Portkey so that it reaches the simulator path the bare proxy
 * forwards to, and the pinned install recognised (or not) from what is in its folder.
 */
import t from 'tap';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CASES, TIMED_CASE_NAMES } from '../../bench/cases';
import { parseOptions } from '../../bench/options';
import { portkeyRequest } from '../../bench/portkey';
import { installProblem, MANIFEST, portkeyDir, versionSeenFrom } from '../../bench/portkey-install';
import { apiPath } from '../../bench/upstreams';
import { tempDir } from '../helpers/gateway';

const PORTKEY = 'http://127.0.0.1:8787';
const SIM = 'http://127.0.0.1:9000';

t.test(
  'each timed case goes to Portkey with a provider and a custom host that ends where the simulator serves it',
  (t) => {
    const expected = {
      json: ['openai', `${SIM}/modela/v1`, { authorization: 'Bearer sim-modela-key' }],
      'json-10': ['openai', `${SIM}/modela/v1`, { authorization: 'Bearer sim-modela-key' }],
      stream: ['openai', `${SIM}/modelc/compatible-mode/v1`, { authorization: 'Bearer sim-modelc-key' }],
      'stream-paced': [
        'openai',
        `${SIM}/modelc/compatible-mode/v1`,
        { authorization: 'Bearer sim-modelc-key' },
      ],
      messages: ['anthropic', `${SIM}/modeld/v1`, { 'x-api-key': 'sim-modeld-key' }],
    } as const;
    for (const name of TIMED_CASE_NAMES) {
      const c = CASES[name];
      const [provider, host, credential] = expected[name];
      const request = portkeyRequest(PORTKEY, SIM, c);
      t.equal(request.url, `${PORTKEY}${c.gatewayPath}`, `${name}: Portkey's path for the API`);
      t.match(
        request.headers,
        { 'x-portkey-provider': provider, 'x-portkey-custom-host': host, ...credential },
        name,
      );
      t.equal(
        `${host}${c.gatewayPath.slice('/v1'.length)}`,
        `${SIM}${apiPath(c.upstream)}`,
        `${name}: host + Portkey's endpoint = the simulator's path`,
      );
      t.equal(request.body, c.body, `${name}: the same body`);
    }
    t.end();
  },
);

t.test("a case's own headers are sent and forwarded to the upstream; none, none forwarded", (t) => {
  const messages = portkeyRequest(PORTKEY, SIM, CASES.messages).headers;
  t.equal(messages['modeld-version'], '2023-06-01');
  t.equal(messages['x-portkey-forward-headers'], 'modeld-version');
  t.notOk('x-portkey-forward-headers' in portkeyRequest(PORTKEY, SIM, CASES.json).headers);
  t.end();
});

t.test('a case Portkey has no route for is refused, not sent somewhere else', (t) => {
  t.throws(
    () => portkeyRequest(PORTKEY, SIM, { ...CASES.json, gatewayPath: '/chat' }),
    /cannot serve the json case/,
  );
  t.end();
});

t.test('the install goes to the user cache, outside the repository', (t) => {
  t.equal(portkeyDir({ XDG_CACHE_HOME: '/c' }), '/c/model-gateway-bench/portkey-1.15.2');
  t.match(portkeyDir({}), /\/\.cache\/model-gateway-bench\/portkey-1\.15\.2$/);
  t.same(MANIFEST.dependencies, { '@portkey-ai/gateway': '1.15.2' });
  t.same(MANIFEST.overrides, { '@hono/node-server': '1.13.5', hono: '4.13.19' });
  t.end();
});

/** Writes `node_modules/<name>/package.json` under `dir` with `version`. */
async function fakePackage(dir: string, name: string, version: string): Promise<void> {
  await mkdir(join(dir, 'node_modules', name), { recursive: true });
  await writeFile(join(dir, 'node_modules', name, 'package.json'), JSON.stringify({ name, version }));
}

t.test('the install is taken as it is only at the pinned versions, as Node resolves them', async (t) => {
  const dir = await tempDir(t, 'portkey-install-');
  t.match(
    await installProblem(dir),
    /@portkey-ai\/gateway missing, not 1\.15\.2; @hono\/node-server missing/,
  );
  await fakePackage(dir, '@portkey-ai/gateway', '1.15.2');
  await fakePackage(dir, '@hono/node-server', '1.19.0');
  await fakePackage(dir, 'hono', '4.14.0');
  t.equal(
    await installProblem(dir),
    '@hono/node-server 1.19.0, not 1.13.5; hono 4.14.0, not 4.13.19',
    'a newer hoisted server and framework',
  );
  await fakePackage(dir, 'hono', '4.13.19');
  t.equal(await installProblem(dir), '@hono/node-server 1.19.0, not 1.13.5', 'the framework held');
  const gateway = join(dir, 'node_modules', '@portkey-ai/gateway');
  await fakePackage(gateway, '@hono/node-server', '1.13.5');
  t.equal(await installProblem(dir), undefined, "Portkey's own nested copy is the one it loads");
  t.equal(await versionSeenFrom(gateway, '@hono/node-server', dir), '1.13.5');
  t.equal(await versionSeenFrom(gateway, 'hono', dir), '4.13.19', 'found up at the root');
  t.equal(await versionSeenFrom(gateway, 'zod', dir), undefined, 'not found up to the root');
});

t.test('--peer takes portkey, nothing else; json-10 is a default case at 10 connections', (t) => {
  t.equal(parseOptions([]).peer, undefined);
  t.equal(parseOptions(['--peer', 'portkey']).peer, 'portkey');
  t.throws(() => parseOptions(['--peer', 'litellm']), /--peer: unknown litellm; known: portkey/);
  t.ok(parseOptions([]).cases.includes('json-10'));
  t.equal(CASES['json-10'].connections, 10);
  t.equal(CASES['json-10'].body, CASES.json.body);
  t.end();
});
