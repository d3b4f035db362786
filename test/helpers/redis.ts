/**
 * Real Redis for tests: the machine's server (127.0.0.1:6379, or TEST_REDIS_URL), each test in its own
 * key prefix and cleaned up after; or a private redis-server of the test's own, for tests that stop and
 * restart it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Teardown } from './gateway';
import { belowEphemeral, PortInUse } from './ports';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix no other test (or run) uses; everything under it is deleted when the test ends. */
export function redisPrefix(t: Teardown, url = TEST_REDIS_URL): string {
  const prefix = `test:${process.pid}:${randomBytes(4).toString('hex')}:`;
  t.teardown(async () => {
    const client = new Redis(url, { maxRetriesPerRequest: 1 });
    try {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await client.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      client.disconnect();
    }
  });
  return prefix;
}

export interface PrivateRedis {
  readonly url: string;
  /** Kills the server at once (SIGKILL), as a crash or a lost host would. */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
}

/** Room for a loaded machine: redis-server is ready in milliseconds on a quiet one. */
const START_TIMEOUT_MS = 20_000;

/**
 * A redis-server of the test's own, without persistence; killed at teardown. redis-server cannot bind
 * port 0 (`--port 0` turns TCP off) and tests kill it and start it again on the same address, so its
 * port is one below the kernel's ephemeral range (no port-0 bind anywhere can take it, before the
 * first start or between a kill and the restart), chosen at random and another tried when redis-server
 * says it is in use; the port in the URL is the one redis-server reports in its start-up lines.
 */
export async function privateRedis(t: Teardown): Promise<PrivateRedis> {
  let child: ChildProcess | undefined;
  const kill = async (): Promise<void> => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return; // already gone
    const exited = new Promise((r) => running.once('exit', r));
    running.kill('SIGKILL');
    await exited;
  };
  t.teardown(kill);
  const launch = (port: number): Promise<number> => {
    const server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = server;
    return redisReady(server, port);
  };
  const port = await belowEphemeral(launch);
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    start: async () => {
      await launch(port).catch((e: unknown) => {
        throw e instanceof PortInUse ? new Error(`cannot start redis-server again: ${e.message}`) : e;
      });
    },
  };
}

/**
 * Resolves with the port redis-server reports once it says it is ready to accept connections; rejects
 * with PortInUse when it exits because `port` is taken, or with its output when it exits otherwise or is
 * not ready in time.
 */
function redisReady(server: ChildProcess, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      server.kill('SIGKILL');
      reject(new Error(`redis-server was not ready in ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const settle = (outcome: () => void) => {
      clearTimeout(timer);
      outcome();
    };
    const read = (d: Buffer) => {
      output += d.toString();
      if (!/Ready to accept connections/.test(output)) return;
      const reported = Number(/port=(\d+)/.exec(output)?.[1]);
      settle(() =>
        reported === port
          ? resolve(reported)
          : reject(new Error(`redis-server asked for port ${port} reported ${reported}:\n${output}`)),
      );
    };
    server.stdout!.on('data', read);
    server.stderr!.on('data', read);
    server.once('error', (e) => settle(() => reject(e)));
    server.once('exit', (code, signal) =>
      settle(() =>
        reject(
          /Address already in use/.test(output)
            ? new PortInUse(`port ${port} is in use`)
            : new Error(`redis-server exited (${code ?? signal}) before it was ready:\n${output}`),
        ),
      ),
    );
  });
}
