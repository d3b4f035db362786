/** Removing the `gateway-redis` target's counts from Redis after a run. */
import { Redis } from 'ioredis';
import type { BenchRedis } from './gateway-config';

export async function deletePrefix({ url, keyPrefix }: BenchRedis): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await client.connect();
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}
