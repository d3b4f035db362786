/**
 * A Lua script run by its SHA (EVALSHA), sent in full only when the server does not know it (after a
 * restart). NOSCRIPT means it did not run, so sending it again then counts nothing twice; any other
 * failure, a timeout above all, is never retried (the script may have run).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export class RedisScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (e) {
      if (!(e instanceof Error && e.message.startsWith('NOSCRIPT'))) throw e;
      return client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
