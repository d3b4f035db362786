/**
 * A production install as the docs give it, on a fresh copy of the repository (the files git would
 * commit, nothing built, no node_modules): `npm start` first says to build; then the Production steps
 * of docs/operations.md (build with every dependency, then reinstall without dev and optional ones, so
 * no TypeScript and no sharp); then `npm start` serves a chat call through the bundled simulator, answers
 * /healthz and /readyz, serves the console the build bundled, says that images need sharp, and
 * `npm run keys` works without a compiler.
 * Last, the time from spawn to ready without the simulator (to the start-up lines, which come once
 * /readyz answers 200), printed for the record. Every listener binds a port the system picks.
 *
 * The slowest test file (two installs and a build: about a minute); npm's cache keeps it offline.
 */
import t, { type Test } from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { tempDir } from '../helpers/gateway';
import { ADMIN_LISTENING, GATEWAY_LISTENING, START_TIMEOUT_MS } from '../helpers/process';

t.setTimeout(8 * 60_000);

const ROOT = join(__dirname, '..', '..', '..');
const KEY_LINE = /^(sk-[A-Za-z0-9_-]{43})$/m;
const chat = { model: 'modela-5.5', messages: [{ role: 'user', content: 'Say hello' }] };

/** The environment without what an enclosing `npm test` sets for its own scripts. */
const baseEnv = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => e[1] !== undefined && !/^npm_/i.test(e[0]),
    ),
  );

/** The shell lines of the first ```sh block after `heading` in `file`, without comments. */
function sectionLines(file: string, heading: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const section = text.slice(text.indexOf(`\n${heading}\n`));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

/** Runs one npm command line (`npm ci && npm run build`, say) in `cwd`; npm's cache first. */
function runLine(t: Test, line: string, cwd: string): void {
  for (const command of line.split('&&').map((c) => c.trim())) {
    const args = command.split(/\s+/);
    t.equal(args[0], 'npm', `${command}: an npm command`);
    if (args[1] === 'ci') args.push('--prefer-offline', '--no-audit', '--no-fund');
    const started = performance.now();
    const run = spawnSync('npm', args.slice(1), { cwd, env: baseEnv(), encoding: 'utf8' });
    t.equal(run.status, 0, `${args.join(' ')} (${Math.round(performance.now() - started)} ms)`, {
      stderr: run.stderr.slice(-2_000),
    });
  }
}

/** A process started in a group of its own, so that npm and the node under it are all stopped at the end. */
function startIn(t: Test, cwd: string, command: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(command[0]!, command.slice(1), {
    cwd,
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  const waiters = new Set<() => void>();
  const read = (d: Buffer) => {
    out += d.toString();
    waiters.forEach((w) => w());
  };
  child.stdout!.on('data', read);
  child.stderr!.on('data', read);
  // 'close', not 'exit': the last lines may still be on their way when 'exit' comes.
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  t.teardown(() => kill('SIGKILL'));
  /** The first match of `pattern` in the output, and when it came (performance.now()). */
  const waitFor = (pattern: RegExp): Promise<{ match: RegExpExecArray; at: number }> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(out);
        if (!match) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve({ match, at: performance.now() });
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${String(pattern)} in ${START_TIMEOUT_MS} ms:\n${out}`));
      }, START_TIMEOUT_MS);
      waiters.add(check);
      check();
      void exited.then(() => {
        if (!waiters.has(check)) return;
        waiters.delete(check);
        clearTimeout(timer);
        reject(new Error(`ended without ${String(pattern)}:\n${out}`));
      });
    });
  return { child, output: () => out, exited, kill, waitFor };
}

/**
 * Where a started gateway listens, from its start-up lines (it binds the ports the system gives it), and
 * the milliseconds from `since` to the first of them. The lines are logged once /readyz answers 200 (the
 * readiness is the last part started), and on a first start they are written out at once, before the new
 * key: their arrival is when it became ready. /readyz is asked once to be sure.
 */
async function untilReady(gateway: ReturnType<typeof startIn>, since: number) {
  const { match, at } = await gateway.waitFor(GATEWAY_LISTENING);
  const { match: admin } = await gateway.waitFor(ADMIN_LISTENING);
  const [url, adminUrl] = [match[1]!, admin[1]!];
  const readyz = await fetch(`${url}/readyz`);
  if (readyz.status !== 200) throw new Error(`${url}/readyz answered ${readyz.status}:\n${gateway.output()}`);
  return { url, adminUrl, ms: at - since };
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The files git would commit: a fresh clone's, with what is not committed yet. */
const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
  cwd: ROOT,
  encoding: 'utf8',
});
const NOT_GIT =
  listed.status === 0 ? {} : { skip: `not a git checkout, no fresh copy to make: ${listed.stderr}` };

t.test(
  'a fresh copy: built as the docs say, started with no dev dependency and no sharp',
  NOT_GIT,
  async (t) => {
    const work = await tempDir(t, 'gateway-production-');
    const clone = join(work, 'repo');
    for (const file of listed.stdout.split('\0').filter(Boolean)) {
      if (!existsSync(join(ROOT, file))) continue; // deleted, not yet committed
      mkdirSync(dirname(join(clone, file)), { recursive: true });
      cpSync(join(ROOT, file), join(clone, file));
    }

    const bare = spawnSync('npm', ['start'], { cwd: clone, env: baseEnv(), encoding: 'utf8' });
    t.equal(bare.status, 1, 'npm start before the build fails');
    t.match(bare.stderr, /dist\/core\/main\.js is missing: .*Run `npm run build` first/, 'and says to build');

    const quickStart = sectionLines('README.md', '## Quick start');
    t.equal(quickStart.length, 2, 'the quick start is two lines');
    t.equal(quickStart[0], 'npm ci && npm run build && npm start');
    t.equal(quickStart[1], 'npm ci && npm test');
    const production = sectionLines('docs/operations.md', '## Production');
    t.strictSame(
      production,
      ['npm ci && npm run build', 'npm ci --omit=dev --omit=optional', 'npm start'],
      "docs/operations.md's production steps",
    );
    for (const line of production.slice(0, -1)) runLine(t, line, clone);
    for (const absent of ['typescript', 'tap', 'eslint', 'openai', 'sharp']) {
      t.notOk(existsSync(join(clone, 'node_modules', absent)), `${absent} is not installed`);
    }

    // The shipped file as it is, on ports the system picks: the simulator's too (a second simulator may
    // run on this machine), which the upstreams follow (SIMULATOR_PORT=0).
    const env = {
      GATEWAY_CONFIG: join(clone, 'gateway.yaml'),
      GATEWAY_DATA_DIR: join(work, 'data'),
      PORT: '0',
      ADMIN_PORT: '0',
      SIMULATOR_PORT: '0',
    };
    const gateway = startIn(t, clone, ['npm', 'start'], env);
    const { url, adminUrl } = await untilReady(gateway, performance.now());
    const key = (await gateway.waitFor(KEY_LINE)).match[1];
    t.ok(key, 'the first key is printed, alone on its line');
    // Logged before the gateway started, and written out before the key.
    t.match(gateway.output(), /bundled simulator on http:\/\/127\.0\.0\.1:[1-9]\d*/);

    const healthz = await fetch(`${url}/healthz`);
    t.equal(healthz.status, 200);
    t.strictSame(await healthz.json(), { status: 'ok' });
    const readyz = await fetch(`${url}/readyz`);
    t.equal(readyz.status, 200);
    t.strictSame(await readyz.json(), { status: 'ok' });
    const page = await fetch(`${adminUrl}/`);
    t.equal(page.status, 200, 'the console, bundled by npm run build, without dev dependencies');
    const script = /<script[^>]*\ssrc="(\/console\/[^"]+)"/.exec(await page.text())?.[1];
    t.ok(script, 'the page names its script');
    t.equal((await fetch(`${adminUrl}${String(script)}`)).status, 200, 'and serves it');

    const answer = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(chat),
    });
    t.equal(answer.status, 200, 'a chat completion through the bundled simulator');
    t.match(await answer.json(), {
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant' } }],
    });

    const image = await fetch(`${url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'modelb-3.1-flash-image-preview', prompt: 'a red square' }),
    });
    t.equal(image.status, 501, 'an image request without sharp');
    t.match(await image.text(), /optional package sharp, which is not installed.*npm install sharp/);

    // The CLI finds the admin API from the same environment, with the port the gateway was given.
    const keys = spawnSync('npm', ['run', '--silent', 'keys', '--', 'list'], {
      cwd: clone,
      env: { ...baseEnv(), ...env, ADMIN_PORT: new URL(adminUrl).port },
      encoding: 'utf8',
    });
    t.equal(keys.status, 0, 'npm run keys runs the built CLI', { stderr: keys.stderr });
    t.match(keys.stdout, key!.slice(0, 11), 'and lists the key');

    gateway.kill('SIGTERM');
    await gateway.exited;
    t.match(gateway.output(), /"msg":"stopped"/, 'SIGTERM through npm: the gateway drained and stopped');

    // Start-up to ready without the simulator, on a fresh data directory each time (secrets, first key).
    const timings: Record<string, number[]> = { 'node dist/core/main.js': [], 'npm start': [] };
    for (let run = 0; run < 3; run++) {
      for (const [name, command] of [
        ['node dist/core/main.js', [process.execPath, 'dist/core/main.js']],
        ['npm start', ['npm', 'start']],
      ] as const) {
        const since = performance.now();
        const started = startIn(t, clone, [...command], {
          ...env,
          GATEWAY_SIMULATOR: 'false',
          GATEWAY_DATA_DIR: join(work, `data-${name.split(' ')[0]}-${run}`),
        });
        timings[name]!.push((await untilReady(started, since)).ms);
        started.kill('SIGTERM');
        await started.exited;
      }
    }
    for (const [name, values] of Object.entries(timings)) {
      const shown = values.map((v) => Math.round(v)).join(', ');
      t.comment(
        `start-up to ready without the simulator, ${name}: median ${Math.round(median(values))} ms (${shown})`,
      );
      t.ok(median(values) < 10_000, `${name}: ready well within the health check's start period`);
    }
  },
);
