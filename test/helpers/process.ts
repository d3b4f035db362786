/**
 * Runs the gateway and its CLI as real child processes, as `npm start` and `npm run keys` do. Tests start
 * a gateway with PORT=0 and ADMIN_PORT=0 (or a file saying port 0) and reach it at the addresses its
 * start-up lines name (`listeningOn`): a port picked free beforehand could be taken before it binds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Teardown } from './gateway';

const DIST = join(__dirname, '..', '..');
export const MAIN = join(DIST, 'core', 'main.js');
export const KEYS_CLI = join(DIST, 'cli', 'keys.js');

export interface GatewayProcess {
  readonly child: ChildProcess;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal) once all its output has been read. */
  readonly exited: Promise<number | null>;
  /**
   * Resolves with the first stdout match of `pattern`; rejects, with what it printed, when it ends
   * without one or `timeoutMs` passes (30 s: a process start on a loaded machine takes seconds).
   */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/** Where a process's start-up is given up on: seconds on a quiet machine, many on a loaded one. */
export const START_TIMEOUT_MS = 30_000;

/** Starts `node dist/core/main.js` with `env` over this process's environment; killed when the test ends. */
export function spawnGateway(t: Teardown, env: Record<string, string>): GatewayProcess {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    waiters.forEach((w) => w());
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  // 'close', not 'exit': stdout and stderr may still hold the last lines when 'exit' comes.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = START_TIMEOUT_MS) {
      return new Promise((resolve, reject) => {
        const printed = () => `stdout: ${out}\nstderr: ${err}`;
        const settle = (outcome: () => void) => {
          waiters.delete(check);
          clearTimeout(timer);
          outcome();
        };
        const check = () => {
          const match = pattern.exec(out);
          if (match) settle(() => resolve(match));
        };
        const timer = setTimeout(
          () => settle(() => reject(new Error(`no ${String(pattern)} in ${timeoutMs} ms; ${printed()}`))),
          timeoutMs,
        );
        waiters.add(check);
        check();
        void exited.then((code) => {
          if (!waiters.has(check)) return; // settled already
          check();
          if (!waiters.has(check)) return;
          settle(() =>
            reject(new Error(`exited (${code}) without printing ${String(pattern)}; ${printed()}`)),
          );
        });
      });
    },
  };
}

/** `… listening on URL`, or `… listening on BOUND (every interface; from this machine: URL)`: URL. */
const listeningLine = (what: string): RegExp =>
  new RegExp(`${what} listening on (?:\\S+ \\(every interface; from this machine: )?(http://[^\\s")]+)`);
export const GATEWAY_LISTENING = listeningLine('gateway');
export const ADMIN_LISTENING = listeningLine('admin API');

/**
 * Where a started gateway is reached from this machine, as its start-up lines say (the ports it bound,
 * whatever PORT and ADMIN_PORT asked for): resolves once both are printed.
 */
export async function listeningOn(
  gateway: GatewayProcess,
  timeoutMs = START_TIMEOUT_MS,
): Promise<{ url: string; adminUrl: string }> {
  const [, url] = await gateway.waitFor(GATEWAY_LISTENING, timeoutMs);
  const [, adminUrl] = await gateway.waitFor(ADMIN_LISTENING, timeoutMs);
  return { url: url!, adminUrl: adminUrl! };
}

/** Runs the keys CLI to completion. */
export function runKeysCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [KEYS_CLI, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr })); // once its output is all read
  });
}
