/**
 * Real Redis for tests: the machine's server (127.0.0.1:6379, or TEST_REDIS_URL), each test in its own
 * key prefix and cleaned up after; or a private redis-server on a free port, for tests that stop and
 * restart it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Teardown } from './gateway';
import { freePort } from './process';

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

/** A redis-server of the test's own, on a free port, without persistence; killed at teardown. */
export async function privateRedis(t: Teardown): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    const probe = new Redis(port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => undefined); // refused until the server listens: retried below
    for (let i = 0; i < 100; i++) {
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error(`redis-server did not start on port ${port}`);
  };
  const kill = async (): Promise<void> => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    running.kill('SIGKILL');
    await exited;
  };
  t.teardown(kill);
  await start();
  return { url: `redis://127.0.0.1:${port}`, kill, start };
}
