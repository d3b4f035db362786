/**
 * The gateway as `npm start` runs it: a real process with a configuration file, printing its first key
 * once, and stopping cleanly on SIGTERM. Each listens on ports the system picks (PORT=0, ADMIN_PORT=0;
 * the bundled simulator's too, SIMULATOR_PORT=0) and is reached where its start-up lines say.
 */
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startSimulator } from '../../simulator/server';
import { tempDir, testConfig, type Teardown } from '../helpers/gateway';
import { openStream, postJson, sseJson, untilData } from '../helpers/http';
import { listeningOn, spawnGateway } from '../helpers/process';
import { eventually } from '../helpers/wait';

// Six gateway processes started one after another, each taking seconds on a loaded machine (this file
// ran 87 s beside new-family's build, a core kept busy): more room than the suite's 120 s.
t.setTimeout(300_000);

const KEY_LINE = /^(sk-[A-Za-z0-9_-]{43})$/m;
const ask = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };

async function writeConfig(t: Teardown, adjust: (doc: Record<string, unknown>) => void = () => undefined) {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const dir = await tempDir(t);
  const doc = testConfig(sim.url, join(dir, 'data'));
  doc.logging = { level: 'info' };
  adjust(doc);
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, stringify(doc));
  return { file, dir, sim, env: { GATEWAY_CONFIG: file, PORT: '0', ADMIN_PORT: '0' } };
}

t.test('the npm scripts point at the compiled entry points', (t) => {
  const root = join(__dirname, '../../..');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  // Through the launcher, which says to build when dist/ is missing: no compiler per call.
  for (const name of ['start', 'keys', 'stores', 'simulator']) {
    const script = pkg.scripts[name] ?? '';
    const entry = /^exec node scripts\/run-built\.js (\S+)$/.exec(script)?.[1];
    t.ok(
      entry && existsSync(join(root, 'dist', `${entry}.js`)),
      `npm run ${name} runs dist/${entry}.js, which exists`,
    );
    t.notMatch(script, /tsc|npm run build/, `npm run ${name} does not build`);
  }
  const bench = /node (dist\/\S+\.js)/.exec(pkg.scripts.bench ?? '')?.[1];
  t.ok(bench && existsSync(join(root, bench)), `npm run bench runs ${bench}, which exists`);
  t.end();
});

t.test('first start prints one key, alone on its line; a restart prints none', async (t) => {
  const { env } = await writeConfig(t);
  const first = spawnGateway(t, env);
  const [, key] = await first.waitFor(KEY_LINE);
  const { url } = await listeningOn(first);
  const res = await postJson(`${url}/v1/chat/completions`, ask, key);
  t.equal(res.status, 200, 'the printed key works');
  first.child.kill('SIGTERM');
  t.equal(await first.exited, 0);

  const second = spawnGateway(t, env);
  const again = await listeningOn(second);
  t.notMatch(second.stdout(), KEY_LINE, 'the key is shown once only');
  t.equal((await postJson(`${again.url}/v1/chat/completions`, ask, key)).status, 200, 'and kept');
  second.child.kill('SIGINT');
  t.equal(await second.exited, 0);
});

t.test('SIGTERM: stops accepting, lets requests in flight finish, exits 0', async (t) => {
  const { env, sim } = await writeConfig(t);
  const gw = spawnGateway(t, env);
  const [, key] = await gw.waitFor(KEY_LINE);
  const { url } = await listeningOn(gw);
  // Held two seconds by the simulator: still in flight when SIGTERM comes, even after a stalled second.
  const inFlight = postJson(`${url}/v1/chat/completions`, ask, key, { 'x-sim-latency-ms': '2000' });
  // In flight: the simulator has it.
  await eventually(() => sim.log.list().some((r) => r.path.includes('/chat/')), 10_000, 'the upstream call');
  gw.child.kill('SIGTERM');
  await gw.waitFor(/no longer accepting/);
  await t.rejects(
    fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } }),
    'new connections are refused',
  );
  const res = await inFlight;
  t.equal(res.status, 200, 'the request in flight finished');
  t.equal(await gw.exited, 0);
});

t.test('SIGTERM: a stream longer than the grace period ends with an error event, then exit 0', async (t) => {
  const { env } = await writeConfig(t, (doc) => {
    (doc.server as Record<string, unknown>).shutdown_grace = '300ms';
  });
  const gw = spawnGateway(t, env);
  const [, key] = await gw.waitFor(KEY_LINE);
  const { url } = await listeningOn(gw);
  // 100 tokens at 5 a second: twenty seconds of stream, far past the grace period however slow the machine.
  const res = await openStream(`${url}/v1/chat/completions`, { ...ask, stream: true }, key!, {
    'x-sim-tps': '5',
    'x-sim-tokens': '100',
  });
  res.setEncoding('utf8');
  let body = '';
  res.on('data', (d: string) => (body += d));
  const ended = new Promise((r) => res.on('end', r));
  await untilData(res, 'data:'); // under way: the first event has come
  gw.child.kill('SIGTERM');
  await ended;
  const last = sseJson<{ error?: { code: string } }>(body).at(-1);
  t.equal(last?.error?.code, 'shutting_down', 'the client is told, not left with a silent cut');
  t.notMatch(body, /\[DONE\]/);
  t.equal(await gw.exited, 0);
});

t.test('an invalid configuration stops start-up with exit 1 and names the field', async (t) => {
  const { env } = await writeConfig(t, (doc) => {
    doc.pipeline = ['auth', { 'rate-limit': { requests_per_minute: -5 } }, 'model-router'];
  });
  const gw = spawnGateway(t, env);
  t.equal(await gw.exited, 1);
  t.match(
    gw.stderr(),
    /invalid configuration: .*gateway\.yaml: pipeline\[1\]\.rate-limit\.requests_per_minute: /,
  );
});

t.test('the shipped gateway.yaml starts the bundled simulator and says so', async (t) => {
  const dir = await tempDir(t);
  const gw = spawnGateway(t, {
    GATEWAY_CONFIG: join(__dirname, '../../../gateway.yaml'),
    GATEWAY_DATA_DIR: dir,
    PORT: '0',
    ADMIN_PORT: '0',
    // Not 9100, which another gateway on this machine may hold: a port the system picks, which the
    // upstreams' default base_urls follow.
    SIMULATOR_PORT: '0',
  });
  const [, key] = await gw.waitFor(KEY_LINE);
  const { url } = await listeningOn(gw);
  const [, simulator] = await gw.waitFor(
    /upstreams point at the bundled simulator on (http:\/\/[^\s:]+:\d+)/,
  );
  t.not(new URL(simulator!).port, '0', 'on the port it was given');
  const res = await postJson(`${url}/v1/chat/completions`, ask, key);
  t.equal(res.status, 200, 'answered through it: the upstreams followed SIMULATOR_PORT to its port');
  gw.child.kill('SIGTERM');
  t.equal(await gw.exited, 0);
});
