/**
 * The failed-auth count on Redis, shared by every instance, so N instances behind a balancer allow an
 * address `limit` failures in all, not N times that. Only failures go to Redis (one script each); the
 * request path's check stays in memory: an instance learns that an address is over the limit from its
 * own next failure's count, and from then on refuses that address's unchecked keys locally until the
 * window ends. While Redis cannot answer, failures are counted here alone.
 */
import { LocalFailedAuthLimit, secondsUntil, wallClock, type FailedAuthLimit } from './failed-auth-limit';
import { type RedisLink, RedisScript } from '../../../core/kit/tokens';

/** KEYS: the address's counter. ARGV: window ms. Returns the count and the window's remaining ms. */
const COUNT = new RedisScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}
`);

export class SharedFailedAuthLimit implements FailedAuthLimit {
  private readonly local: LocalFailedAuthLimit;

  constructor(
    private readonly redis: RedisLink,
    private readonly limit: number,
    private readonly windowMs: number,
    /** Epoch ms, for the windows learnt from Redis (which times them itself) and the local count. */
    private readonly clock: () => number = wallClock,
  ) {
    this.local = new LocalFailedAuthLimit(limit, windowMs, clock);
  }

  blockedFor(address: string, now = this.clock()): number | undefined {
    return this.local.blockedFor(address, now);
  }

  async failed(address: string): Promise<number | undefined> {
    if (this.limit === 0) return undefined;
    if (!this.redis.up) return this.local.failed(address);
    let answer: unknown;
    try {
      answer = await COUNT.run(this.redis.client, [this.redis.name(`fa:${address}`)], [this.windowMs]);
    } catch {
      return this.local.failed(address);
    }
    const [count, leftMs] = answer as [number, number];
    const now = this.clock();
    const endsAt = now + (leftMs > 0 ? leftMs : this.windowMs);
    if (count >= this.limit) this.local.block(address, endsAt);
    return count > this.limit ? secondsUntil(endsAt, now) : undefined;
  }
}
