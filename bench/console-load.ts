/**
 * `npm run bench:console`: how the operators' console and the admin API it calls hold up with 1,000 keys
 * and 1,000,000 usage records over 30 days. Keys are made through the admin API (their hashes need the
 * server's secret), the usage files are written directly (console-usage-data.ts), then the gateway is
 * restarted on them and timed: its start, the API calls, and the pages in headless Chromium.
 * `-- --cpu-prof <dir>` profiles the measured gateway (written when it stops).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCall } from './admin-call';
import { Cleanup } from './cleanup';
import { ConsoleBrowser } from './console-browser';
import { writeUsage } from './console-usage-data';
import { gatewayYaml } from './gateway-config';
import { dataDirOf, startGatewayOn, type GatewayHome, type RunningGateway } from './gateway-process';
import type { Child } from './processes';

const KEYS = 1_000;
const RECORDS = 1_000_000;
const RUNS = 5;
const KEY_CONCURRENCY = 20;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START_MS = 300_000;
/** Nothing is proxied: the upstreams only have to be valid addresses. */
const NO_UPSTREAM = 'http://127.0.0.1:9';

interface Env extends GatewayHome {
  readonly cpuProfDir: string | undefined;
}

const startGateway = (env: Env, profile: boolean): Promise<RunningGateway> =>
  startGatewayOn(env, {
    timeoutMs: START_MS,
    nodeArgs: profile && env.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${env.cpuProfDir}`] : [],
  });

/** Creates the keys through the admin API, a few at a time; resolves with their ids. */
async function createKeys(gw: RunningGateway, token: string): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < KEYS) {
      const n = next++;
      const text = await adminCall(gw.adminUrl, token, 'POST', '/admin/keys', {
        description: `bench key ${n}`,
      });
      ids.push((JSON.parse(text) as { record: { id: string } }).record.id);
    }
  };
  await Promise.all(Array.from({ length: KEY_CONCURRENCY }, worker));
  return ids;
}

interface Row {
  readonly name: string;
  readonly ms: number[];
  readonly note: string;
}

async function measure(name: string, run: () => Promise<string>): Promise<Row> {
  const ms: number[] = [];
  let note = '';
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    note = await run();
    ms.push(performance.now() - started);
  }
  return { name, ms, note };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => ms.toFixed(0).padStart(8);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** The child's VmRSS and VmHWM, in bytes. */
async function rss(child: Child): Promise<string> {
  const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0);
  return `${mb(kb('VmRSS') * 1024)} (peak ${mb(kb('VmHWM') * 1024)})`;
}

async function apiRows(gw: RunningGateway, token: string, keyId: string): Promise<Row[]> {
  const to = Math.floor(Date.now() / HOUR) * HOUR + HOUR;
  const range = `from=${new Date(to - 30 * DAY).toISOString()}&to=${new Date(to).toISOString()}`;
  const calls = [
    '/admin/keys?limit=50',
    `/admin/usage/summary?group_by=model,day&${range}`,
    `/admin/usage/summary?group_by=model,hour&${range}`,
    '/admin/usage/summary?group_by=key',
    `/admin/usage/summary?group_by=key&key_id=${keyId}`,
  ];
  const rows: Row[] = [];
  for (const path of calls) {
    rows.push(
      await measure(`GET ${path.replace(range, 'from=<30d>&to=<next hour>')}`, async () => {
        const text = await adminCall(gw.adminUrl, token, 'GET', path);
        const n = (JSON.parse(text) as { data: unknown[] }).data.length;
        return `${n} rows, ${(text.length / 1024).toFixed(0)} kB`;
      }),
    );
  }
  return rows;
}

async function browserRows(gw: RunningGateway, token: string): Promise<Row[]> {
  const browser = await ConsoleBrowser.launch(gw.adminUrl, token);
  try {
    const timed = async (name: string, f: () => Promise<number>): Promise<Row> => {
      const ms: number[] = [];
      for (let i = 0; i < RUNS; i++) ms.push(await f());
      return { name, ms, note: '' };
    };
    return [
      await timed('page: keys, first 50 rows', () => browser.keysPage()),
      await timed('page: usage, 30 days per day', () => browser.usagePage('day')),
      await timed('page: usage, 30 days per hour', () => browser.usagePage('hour')),
    ];
  } finally {
    await browser.close();
  }
}

async function main(cleanup: Cleanup): Promise<void> {
  const flag = process.argv.indexOf('--cpu-prof');
  const env: Env = {
    dir: await mkdtemp(join(tmpdir(), 'bench-console-')),
    token: randomBytes(24).toString('base64url'),
    cpuProfDir: flag >= 0 ? process.argv[flag + 1] : undefined,
  };
  cleanup.add('delete the temp dir', () => rm(env.dir, { recursive: true, force: true }));
  await writeFile(join(env.dir, 'gateway.yaml'), gatewayYaml(NO_UPSTREAM));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(`console bench: ${KEYS} keys, ${RECORDS.toLocaleString('en-US')} usage records over 30 days`);

  const first = await startGateway(env, false);
  cleanup.add('stop the first gateway', () => first.child.stop());
  say(`  gateway start, empty store:      ${fmt(first.startMs)} ms`);
  let started = performance.now();
  const ids = await createKeys(first, env.token);
  say(`  ${KEYS} keys via POST /admin/keys:  ${fmt(performance.now() - started)} ms`);
  await first.child.stop();

  started = performance.now();
  const now = Date.now();
  const bytes = await writeUsage(dataDirOf(env), ids, RECORDS, now - 30 * DAY, now);
  say(`  usage files written (${mb(bytes)}):   ${fmt(performance.now() - started)} ms`);

  const gw = await startGateway(env, true);
  cleanup.add('stop the gateway', () => gw.child.stop());
  say(`  gateway start, 1M records:       ${fmt(gw.startMs)} ms  (spawn to listening)`);
  say(`  gateway RSS after open:          ${await rss(gw.child)}`);

  const rows = [...(await apiRows(gw, env.token, ids[0]!)), ...(await browserRows(gw, env.token))];
  say(`  gateway RSS after the runs:      ${await rss(gw.child)}`);
  say('');
  say(`${'5 runs each'.padEnd(70)}  median     max`);
  for (const r of rows) {
    say(`${r.name.padEnd(70)}${fmt(median(r.ms))}${fmt(Math.max(...r.ms))}  ${r.note}`);
  }
}

const cleanup = new Cleanup();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanup.run().then(() => process.exit(130)));
}
main(cleanup)
  .catch((e: unknown) => {
    process.stderr.write(`bench:console: ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await cleanup.run();
    process.exit(); // with exitCode; a failed start leaves a port wait running
  });
