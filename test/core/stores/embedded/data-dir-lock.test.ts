/**
 * One gateway per embedded data directory: the lock file, its stale-lock rules, and real processes (a
 * second gateway on a directory in use exits 1 at once; a SIGKILLed one does not block its restart).
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import {
  DataDirLock,
  DataDirLockedError,
  LOCK_FILE,
  type LockHolder,
} from '../../../../core/stores/embedded/data-dir-lock';
import { startSimulator } from '../../../../simulator/server';
import { tempDir, testConfig, type Teardown } from '../../../helpers/gateway';
import { postJson } from '../../../helpers/http';
import { spawnGateway, type GatewayProcess } from '../../../helpers/process';

const holderIn = async (dir: string): Promise<LockHolder> =>
  JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')) as LockHolder;

const writeHolder = (dir: string, holder: Partial<LockHolder>) =>
  writeFile(join(dir, LOCK_FILE), JSON.stringify({ started_at: '2026-01-01T00:00:00.000Z', ...holder }));

/** The pid of a process that has exited. */
function deadPid(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', '0']);
    child.on('exit', () => resolve(child.pid!));
  });
}

/** A process that keeps running until the test ends. */
function livePid(t: Teardown): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  t.teardown(() => child.kill('SIGKILL'));
  return child.pid!;
}

t.test('the lock names its holder; a second open in this process is refused; release frees it', async (t) => {
  const dir = await tempDir(t);
  const lock = await DataDirLock.acquire(dir);
  const holder = await holderIn(dir);
  t.equal(holder.pid, process.pid);
  t.equal(holder.host, hostname());
  t.ok(Date.parse(holder.started_at) > 0, 'when it was taken');
  await t.rejects(DataDirLock.acquire(dir), DataDirLockedError, 'the same directory twice in one process');
  await lock.release();
  t.notOk(existsSync(join(dir, LOCK_FILE)), 'released: the file is gone');
  const again = await DataDirLock.acquire(dir);
  await again.release();
});

t.test(
  'a lock held by a live process on this host is refused, naming directory, pid, host and time',
  async (t) => {
    const dir = await tempDir(t);
    const pid = livePid(t);
    await writeHolder(dir, { pid, host: hostname() });
    const error = await DataDirLock.acquire(dir).catch((e: unknown) => e);
    t.type(error, DataDirLockedError);
    const message = (error as Error).message;
    t.match(message, dir, 'the directory');
    t.match(message, `pid ${pid} on host ${hostname()}`, 'the holder');
    t.match(message, 'started 2026-01-01T00:00:00.000Z', 'since when');
    t.equal((await holderIn(dir)).pid, pid, 'the lock is left alone');
  },
);

t.test("a crashed holder's lock is taken over at once", (t) => {
  t.test('its pid is no longer running', async (t) => {
    const dir = await tempDir(t);
    await writeHolder(dir, { pid: await deadPid(), host: hostname() });
    const lock = await DataDirLock.acquire(dir);
    t.equal((await holderIn(dir)).pid, process.pid, 'ours now');
    await lock.release();
  });
  t.test('it was this very pid (a restarted container, pid 1 again)', async (t) => {
    const dir = await tempDir(t);
    await writeHolder(dir, { pid: process.pid, host: hostname() });
    const lock = await DataDirLock.acquire(dir);
    t.not((await holderIn(dir)).started_at, '2026-01-01T00:00:00.000Z', 'ours now');
    await lock.release();
  });
  t.test(
    'its pid was reused by a process started later',
    { skip: !existsSync('/proc/self/stat') },
    async (t) => {
      const dir = await tempDir(t);
      await writeHolder(dir, { pid: livePid(t), host: hostname(), proc_start: '1' });
      const lock = await DataDirLock.acquire(dir);
      t.equal((await holderIn(dir)).pid, process.pid, 'ours now');
      await lock.release();
    },
  );
  t.end();
});

t.test('a lock that cannot be checked is refused', async (t) => {
  const dir = await tempDir(t);
  await writeHolder(dir, { pid: await deadPid(), host: 'another-host.example' });
  await t.rejects(
    DataDirLock.acquire(dir),
    { message: /pid \d+ on host another-host\.example/ },
    'another host',
  );
  await writeFile(join(dir, LOCK_FILE), '');
  await t.rejects(
    DataDirLock.acquire(dir),
    { message: /cannot be read; .*remove it/ },
    'an unreadable lock file',
  );
});

t.test('release leaves a lock that is no longer ours', async (t) => {
  const dir = await tempDir(t);
  const lock = await DataDirLock.acquire(dir);
  await writeHolder(dir, { pid: 1, host: 'someone-else' });
  await lock.release();
  t.equal((await holderIn(dir)).host, 'someone-else');
});

/**
 * A configuration file and its data directory for gateway processes, each on port 0: ports picked free
 * beforehand were once taken by another test before the gateway bound them.
 */
async function setup(t: Teardown) {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const dir = await tempDir(t);
  const dataDir = join(dir, 'data');
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, stringify({ ...testConfig(sim.url, dataDir), logging: { level: 'info' } }));
  const env = () => ({
    GATEWAY_CONFIG: file,
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    PORT: '0',
    ADMIN_PORT: '0',
  });
  return { dataDir, env };
}

const KEY_LINE = /^(sk-[A-Za-z0-9_-]{43})$/m;
/** How long a gateway process may take to start (or to exit) on a loaded machine before the test fails. */
const START_MS = 30_000;
const ask = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };
const ADMIN_TOKEN = 'admin-token-for-tests';

/** Where a started gateway process listens, read from its start-up lines. */
interface Listening {
  readonly url: string;
  readonly adminUrl: string;
}

async function listening(gw: GatewayProcess): Promise<Listening> {
  const [, url] = await gw.waitFor(/gateway listening on (http:\/\/127\.0\.0\.1:\d+)/, START_MS);
  const [, adminUrl] = await gw.waitFor(/admin API listening on (http:\/\/127\.0\.0\.1:\d+)/, START_MS);
  return { url: url!, adminUrl: adminUrl! };
}

const chat = (at: Listening, key: string) => postJson(`${at.url}/v1/chat/completions`, ask, key);

async function createKey(at: Listening): Promise<string> {
  const res = await postJson<{ key: string }>(
    `${at.adminUrl}/admin/keys`,
    { description: 'made on the first gateway' },
    ADMIN_TOKEN,
  );
  return res.body.key;
}

t.test(
  'processes: a second gateway on a directory in use exits 1 at once; the first keeps its keys',
  async (t) => {
    const { dataDir, env } = await setup(t);
    const spawned = Date.now();
    const first = spawnGateway(t, env());
    const [, printed] = await first.waitFor(KEY_LINE, START_MS);
    const firstAt = await listening(first);
    const startup = Date.now() - spawned;
    const made = await createKey(firstAt);

    const started = Date.now();
    const second = spawnGateway(t, env());
    const timeout = new Promise<string>((r) =>
      setTimeout(() => r(`still running after ${START_MS / 1000} s`), START_MS).unref(),
    );
    t.equal(await Promise.race([second.exited, timeout]), 1, 'the second exits 1');
    // At once: no later than a whole start-up of the first took (on this machine, at this load) and
    // 5 s more; a gateway that waited for the directory would still be waiting.
    const took = Date.now() - started;
    t.ok(took < startup + 5_000, `at once (${took} ms; the first started in ${startup} ms)`);
    const pid = first.child.pid!;
    t.match(
      second.stderr(),
      `gateway: data directory ${dataDir} is in use`,
      'on stderr, naming the directory',
    );
    t.match(second.stderr(), `pid ${pid} on host ${hostname()}, started `, 'and the other process');
    t.notMatch(second.stdout(), KEY_LINE, 'it created no key');

    for (const key of [printed!, made])
      t.equal((await chat(firstAt, key)).status, 200, 'the first still serves');
    first.child.kill('SIGTERM');
    t.equal(await first.exited, 0);
    t.notOk(existsSync(join(dataDir, LOCK_FILE)), 'a clean stop removes the lock');

    const third = spawnGateway(t, env());
    const thirdAt = await listening(third);
    for (const key of [printed!, made]) t.equal((await chat(thirdAt, key)).status, 200, 'the keys were kept');
    third.child.kill('SIGTERM');
    t.equal(await third.exited, 0);
  },
);

t.test('processes: after SIGKILL a new gateway starts on the directory at once', async (t) => {
  const { dataDir, env } = await setup(t);
  const spawned = Date.now();
  const first = spawnGateway(t, env());
  const [, key] = await first.waitFor(KEY_LINE, START_MS);
  await first.waitFor(/admin API listening/, START_MS);
  const startup = Date.now() - spawned;
  first.child.kill('SIGKILL');
  await first.exited;
  t.equal((await holderIn(dataDir)).pid, first.child.pid, 'the dead process left its lock');

  const restarted = Date.now();
  const next = spawnGateway(t, env());
  await next.waitFor(/admin API listening/, START_MS);
  // At once: no stale period waited out, so about as long as the first start took (5 s to spare).
  const took = Date.now() - restarted;
  t.ok(took < startup + 5_000, `started in ${took} ms (the first in ${startup} ms)`);
  const nextAt = await listening(next);
  t.equal((await holderIn(dataDir)).pid, next.child.pid, 'taken over');
  t.equal((await chat(nextAt, key!)).status, 200, 'and serving the keys');
  next.child.kill('SIGTERM');
  t.equal(await next.exited, 0);
  t.notOk(existsSync(join(dataDir, LOCK_FILE)));
});
