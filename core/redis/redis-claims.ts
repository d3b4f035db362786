/**
 * Claims on Redis, for instances that share it (whatever their stores): `SET NX` with the claim's expiry,
 * so exactly one instance sets each name, and Redis forgets it once it expires.
 */
import type { ClaimStore } from '../stores/claim-store';
import type { RedisLink } from './redis-link';

export class RedisClaims implements ClaimStore {
  constructor(
    private readonly redis: RedisLink,
    private readonly clock: () => number = Date.now,
  ) {}

  async claim(name: string, owner: string, expiresAt: number): Promise<boolean> {
    if (!this.redis.up) throw new Error('redis is not connected');
    const key = this.redis.name(`claims:${name}`);
    const ttlMs = Math.max(1, expiresAt - this.clock());
    if ((await this.redis.client.set(key, owner, 'PX', ttlMs, 'NX')) === 'OK') return true;
    // Set already: by this owner when an earlier try's answer was lost (a timeout after the write).
    return (await this.redis.client.get(key)) === owner;
  }

  /** The link is the gateway's: it closes it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
