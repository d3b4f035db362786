/**
 * How many gateway instances share the Redis server: each one renews its entry in a sorted set every
 * second, scored by when it lapses on Redis' clock, and reads the count of live entries in the same
 * script. A limiter that cannot reach Redis divides its limit by the last count it saw, so N instances
 * on their own together admit about what the shared limit would.
 */
import type { RedisLink } from './redis-link';
import { token } from '../base/token';

const HEARTBEAT_MS = 1_000;
/** An instance that missed this long (three beats) is no longer counted. */
const LAPSE_MS = 3_000;

const HEARTBEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return redis.call('ZCARD', KEYS[1])
`;

export class LiveInstances {
  private count = 1;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisLink,
    private readonly instanceId: string,
  ) {}

  /** The number of live instances last seen (this one included; 1 before Redis ever answered). */
  get last(): number {
    return this.count;
  }

  start(): void {
    void this.beat();
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Stops beating and leaves the set at once, so the others stop counting this instance. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    if (this.redis.up)
      await this.redis.client.zrem(this.redis.name('instances'), this.instanceId).catch(() => 0);
  }

  private async beat(): Promise<void> {
    if (!this.redis.up) return;
    try {
      const live = await this.redis.client.eval(
        HEARTBEAT,
        1,
        this.redis.name('instances'),
        this.instanceId,
        LAPSE_MS,
      );
      if (typeof live === 'number' && live > 0) this.count = live;
    } catch {
      // Keep the last count: a missed beat is the same as Redis being away.
    }
  }
}

/** How many instances share Redis (undefined without Redis). */
export const LiveInstancesToken = token<LiveInstances | undefined>('LiveInstances');
