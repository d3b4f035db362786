/**
 * What a newcomer reads when `npm start` runs the shipped gateway.yaml: where it listens (the address
 * bound, with a warning when that is every interface), whose port is taken when a second instance
 * starts, which storage cannot be reached, which upstreams still point at the simulator once it is off,
 * and the log as pretty lines (logging.format: pretty). Each runs the real process and reads what it
 * prints.
 */
import t from 'tap';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadConfigFile } from '../../config/load';
import { tempDir, testConfig, type Teardown } from '../helpers/gateway';
import { ADMIN_LISTENING, GATEWAY_LISTENING, spawnGateway, type GatewayProcess } from '../helpers/process';
import { refusedUrl, REFUSED_PORT } from '../helpers/ports';

// Thirteen gateway processes started one after another, each taking seconds on a loaded machine (this
// file ran 116 s beside new-family's build, a core kept busy): more room than the suite's 120 s.
t.setTimeout(300_000);

const SHIPPED = join(__dirname, '../../../gateway.yaml');

/**
 * The shipped file on ports the system picks (the simulator's too), in a data directory of its own;
 * the start-up lines name the ports bound.
 */
async function shippedEnv(t: Teardown, env: Record<string, string> = {}) {
  return {
    GATEWAY_CONFIG: SHIPPED,
    GATEWAY_DATA_DIR: await tempDir(t),
    PORT: '0',
    ADMIN_PORT: '0',
    SIMULATOR_PORT: '0',
    ...env,
  };
}

/**
 * Resolves once every start-up line is printed: on a first start (a data directory of its own) main.ts
 * writes the log out, then the new key on its own line.
 */
const startedUp = (gw: GatewayProcess) => gw.waitFor(/^sk-[A-Za-z0-9_-]{43}$/m);

/** The pino lines printed so far, parsed. */
const logLines = (gw: GatewayProcess): { level: number; msg: string }[] =>
  gw
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
const warnings = (gw: GatewayProcess): string[] =>
  logLines(gw)
    .filter((l) => l.level === 40)
    .map((l) => l.msg);

/** Holds a port, of the system's choosing, as another process would; resolves with it. */
async function occupy(t: Teardown, host: string): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** Whether an HTTP server answers at `url`: the address a start-up line names is the one bound. */
const answers = async (url: string): Promise<boolean> =>
  fetch(`${url}/healthz`).then(
    () => true,
    () => false,
  );

async function stopped(t: Teardown & { equal: (a: unknown, b: unknown) => void }, gw: GatewayProcess) {
  gw.child.kill('SIGTERM');
  t.equal(await gw.exited, 0);
}

t.test('the log names the address bound and warns that it is every interface', async (t) => {
  const gw = spawnGateway(t, await shippedEnv(t));
  const [, url] = await gw.waitFor(GATEWAY_LISTENING);
  const port = new URL(url!).port;
  t.match(
    gw.stdout(),
    `gateway listening on http://0.0.0.0:${port} (every interface; from this machine: http://127.0.0.1:${port})"`,
  );
  t.ok(await answers(url!), 'the gateway is there');
  const [, adminUrl] = await gw.waitFor(ADMIN_LISTENING);
  t.match(gw.stdout(), `admin API listening on ${adminUrl}"`, 'the admin API as bound');
  t.ok(await answers(adminUrl!), 'and there');
  await startedUp(gw);
  t.match(
    warnings(gw).find((w) => w.startsWith('the gateway listens on every interface')),
    /server\.host 0\.0\.0\.0.*set GATEWAY_HOST=127\.0\.0\.1/,
    'the warning says how to keep it on this machine',
  );
  t.notOk(
    warnings(gw).some((w) => /console is not built/.test(w)),
    'npm run build built the console: no warning',
  );
  await stopped(t, gw);

  const local = spawnGateway(t, await shippedEnv(t, { GATEWAY_HOST: '127.0.0.1' }));
  const [, localUrl] = await local.waitFor(GATEWAY_LISTENING);
  t.match(local.stdout(), `gateway listening on ${localUrl}"`);
  t.match(localUrl, /^http:\/\/127\.0\.0\.1:\d+$/, 'the one address, on loopback');
  t.ok(await answers(localUrl!), 'the gateway is there');
  await startedUp(local);
  t.notOk(
    warnings(local).some((w) => /every interface/.test(w)),
    'no warning on loopback',
  );
  await stopped(t, local);
});

/** A pretty log line: local time to the millisecond, then the level. */
const PRETTY = /^\[\d\d:\d\d:\d\d\.\d{3}\] [A-Z]+: /;

t.test(
  'logging.format: pretty in a pipe: pretty lines, the first key after the start-up warnings',
  async (t) => {
    const shipped = await readFile(SHIPPED, 'utf8');
    const text = shipped.replace(/^( {2}format:) auto /m, '$1 pretty ');
    t.not(text, shipped, 'the shipped file sets logging.format');
    const file = join(await tempDir(t), 'gateway.yaml');
    await writeFile(file, text);
    const gw = spawnGateway(t, await shippedEnv(t, { GATEWAY_CONFIG: file }));
    await startedUp(gw);
    const lines = gw.stdout().split('\n');
    const heading = lines.findIndex((l) => l.startsWith('First start: created API key'));
    t.match(lines[heading + 1], /^sk-[A-Za-z0-9_-]{43}$/, 'the key on the line after its heading');
    const before = lines.slice(0, heading - 1);
    t.equal(lines[heading - 1], '', 'a blank line before the heading');
    t.strictSame(
      before.filter((l) => !PRETTY.test(l)),
      [],
      'every line logged before it is pretty',
    );
    t.ok(
      before.some((l) => / WARN: upstreams point at the bundled simulator/.test(l)),
      "the simulator's warning before the key",
    );
    t.ok(
      before.some((l) => / WARN: the gateway listens on every interface/.test(l)),
      'the last start-up warning before the key',
    );
    t.notMatch(gw.stdout(), '\x1b[', 'no colour in a pipe');
    await stopped(t, gw);
    t.match(
      gw.stdout().trimEnd().split('\n').pop(),
      /INFO: stopped$/,
      'the last line, written at exit, pretty',
    );
  },
);

t.test('a bad logging.format stops start-up naming it', async (t) => {
  const dir = await tempDir(t);
  const doc = testConfig(refusedUrl(), join(dir, 'data'));
  doc.logging = { format: 'colour' };
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, stringify(doc));
  const gw = spawnGateway(t, { GATEWAY_CONFIG: file });
  t.equal(await gw.exited, 1, 'exit 1');
  t.match(
    gw.stderr(),
    `gateway: invalid configuration: ${file}: logging.format: Invalid option: expected one of "auto"|"pretty"|"json"`,
    'names the field and the values it takes',
  );
});

t.test('a port in use names whose it is and the variable that moves it', async (t) => {
  const cases = [
    { variable: 'SIMULATOR_PORT', host: '127.0.0.1', what: 'the bundled simulator' },
    { variable: 'PORT', host: '0.0.0.0', what: 'the gateway' },
    { variable: 'ADMIN_PORT', host: '127.0.0.1', what: 'the admin API' },
  ] as const;
  for (const { variable, host, what } of cases) {
    const taken = await occupy(t, host);
    const gw = spawnGateway(t, await shippedEnv(t, { [variable]: String(taken) }));
    t.equal(await gw.exited, 1, `${variable} taken: exit 1`);
    t.match(
      gw.stderr(),
      `gateway: ${what} cannot listen on ${host}:${taken}: the port is already in use`,
      `${variable} taken: says it is ${what}'s`,
    );
    t.match(gw.stderr(), `set ${variable} to another port`, `${variable} taken: names ${variable}`);
  }
});

t.test('with the simulator off, each upstream still at its address is named with what to set', async (t) => {
  const env = await shippedEnv(t, {
    GATEWAY_SIMULATOR: 'false',
    // Nothing binds it with the simulator off: the warnings name the address SIMULATOR_PORT gives.
    SIMULATOR_PORT: '9123',
    MODELA_BASE_URL: refusedUrl('/v1'),
    MODELA_API_KEY: 'sk-real',
  });
  const gw = spawnGateway(t, env);
  await startedUp(gw);
  const said = warnings(gw);
  const sim = 'http://127.0.0.1:9123';
  t.ok(
    said.includes(
      `upstream videoa-main still points at the simulator (${sim}/videoa) while the simulator is off: set VIDEOA_BASE_URL and VIDEOA_API_KEY`,
    ),
    'a video upstream, with both variables',
  );
  t.ok(
    said.includes(
      `upstream modeld-main still points at the simulator (${sim}/modeld) while the simulator is off: set MODELD_BASE_URL and MODELD_API_KEY`,
    ),
  );
  t.notOk(
    said.some((w) => w.startsWith('upstream modela-main')),
    'an upstream given its vendor is not named',
  );
  // Every shipped upstream but modela-main, however many gateway.yaml ships.
  const others = Object.keys(loadConfigFile(SHIPPED, { GATEWAY_SIMULATOR: 'false' }).upstreams).length - 1;
  t.equal(
    said.filter((w) => w.includes('still points at the simulator')).length,
    others,
    `the ${others} other upstreams of gateway.yaml are named`,
  );
  t.notMatch(gw.stdout(), /answers are simulated/, 'the simulator is not started');
  await stopped(t, gw);
});

t.test('an upstream given a real address but still the simulator key is named too', async (t) => {
  const env = await shippedEnv(t, {
    GATEWAY_SIMULATOR: 'false',
    MODELC_BASE_URL: refusedUrl('/v1'),
  });
  const gw = spawnGateway(t, env);
  await startedUp(gw);
  t.ok(
    warnings(gw).includes(
      "upstream modelc-main still sends the simulator's key while the simulator is off: set MODELC_API_KEY",
    ),
  );
  await stopped(t, gw);
});

t.test('a file with three errors in different places reports all three, each with its path', async (t) => {
  const dir = await tempDir(t);
  const doc = testConfig(refusedUrl(), join(dir, 'data'));
  doc.server = { host: '127.0.0.1', port: 70_000 };
  doc.keys = { cache_tll: '1s' };
  doc.prices = { 'modela-*': { input_per_mtok: 'cheap' } };
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, stringify(doc));
  const gw = spawnGateway(t, { GATEWAY_CONFIG: file });
  t.equal(await gw.exited, 1);
  const err = gw.stderr();
  t.match(err, `gateway: invalid configuration: ${file}: 3 problems:\n`);
  t.match(err, /\n {2}server\.port: .*65535/);
  t.match(err, /\n {2}keys: .*"cache_tll"/);
  t.match(err, /\n {2}prices\.modela-\*\.input_per_mtok: .*number/);
});

t.test('errors in several plugin sections are reported together', async (t) => {
  const dir = await tempDir(t);
  const doc = testConfig(refusedUrl(), join(dir, 'data'));
  const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
  upstreams['modela-main']!.base_url = 'not a url';
  upstreams['videob-main']!.poll = { concurrency: 0 };
  doc.pipeline = ['auth', 'model-router', { 'rate-limit': { requests_per_minute: -1, typo: 1 } }];
  doc.video = { protocols: { generic: { models: [] } } };
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, stringify(doc));
  const gw = spawnGateway(t, { GATEWAY_CONFIG: file, PORT: '0', ADMIN_PORT: '0' });
  t.equal(await gw.exited, 1);
  const err = gw.stderr();
  t.match(err, `${file}: 5 problems:\n`);
  for (const path of [
    'upstreams.modela-main.base_url',
    'upstreams.videob-main.poll.concurrency',
    'pipeline[2].rate-limit.requests_per_minute',
    'pipeline[2].rate-limit: ',
    'video.protocols.generic.models',
  ]) {
    t.match(err, `\n  ${path}`, `names ${path}`);
  }
});

t.test("core's errors and the plugins' come in one report", async (t) => {
  const dir = await tempDir(t);
  const doc = testConfig(refusedUrl(), join(dir, 'data'));
  doc.server = { host: '127.0.0.1', port: 70_000 };
  const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
  upstreams['modela-main']!.base_url = 'not a url';
  doc.pipeline = ['auth', 'model-router', { 'rate-limit': { requests_per_minute: -1 } }];
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, stringify(doc));
  const gw = spawnGateway(t, { GATEWAY_CONFIG: file });
  t.equal(await gw.exited, 1);
  const err = gw.stderr();
  t.match(err, `${file}: 3 problems:\n`);
  for (const path of [
    'server.port',
    'upstreams.modela-main.base_url',
    'pipeline[2].rate-limit.requests_per_minute',
  ]) {
    t.match(err, `\n  ${path}`, `names ${path}`);
  }
});

t.test('MongoDB out of reach: the storage URI is named, its password is not', async (t) => {
  const dir = await tempDir(t);
  const port = REFUSED_PORT;
  const doc = testConfig(refusedUrl(), join(dir, 'data'));
  doc.storage = { driver: 'mongodb', uri: '${MONGODB_URI}', data_dir: join(dir, 'data') };
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, stringify(doc));
  const gw = spawnGateway(t, {
    GATEWAY_CONFIG: file,
    GATEWAY_KEY_SECRET: 'x'.repeat(32),
    MONGODB_URI: `mongodb://gateway:hunter2@127.0.0.1:${port}/?authSource=admin`,
  });
  t.equal(await gw.exited, 1);
  const err = gw.stderr();
  t.match(
    err,
    `gateway: cannot reach MongoDB at mongodb://gateway:***@127.0.0.1:${port}/ (the storage URI, storage.uri): `,
  );
  t.match(err, /ECONNREFUSED/, 'with the cause');
  t.notMatch(err, /hunter2/, 'never the password');
});
