/**
 * One upstream's poll caps shared by every instance on the Redis server: one script call per poll, on
 * Redis' clock, grants a poll or says how long to wait. Polls in flight are entries of a sorted set that
 * lapse after `slotMs` (an instance that dies holding some frees them then); the rate is a shared
 * "next start" time, spaced as the local gate spaces polls, so no second ever holds more than the cap.
 * With Redis down it falls back at once to local caps divided among the instances last seen live.
 *
 * Not Bottleneck's Redis clustering: its queued jobs wait on Redis messages, so they stall while Redis is
 * away, and its scripts fail with NOSCRIPT after a Redis restart (SGrondin/bottleneck#118, #194).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { LiveInstances } from '../redis/live-instances';
import type { RedisLink } from '../redis/redis-link';
import { LocalPollGate, pollSpacingMs, type PollCaps, type PollGate, type PollGates } from './poll-gate';

/** Every upstream's caps shared through Redis; slots lapse after `slotMs` (the poller's lease). */
export const sharedPollGates =
  (redis: RedisLink, live: LiveInstances | undefined, slotMs: number, logger: Logger): PollGates =>
  (upstream, caps) =>
    new SharedPollGate(redis, upstream, caps, slotMs, live, logger);

// KEYS: next start, polls in flight. ARGV: spacing ms, concurrency, slot id, slot ms, wait when full.
// Returns 0 when the poll may start (its slot taken), else the ms to wait before asking again.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local spacing = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return tonumber(ARGV[5]) end
local next = tonumber(redis.call('GET', KEYS[1]) or '0')
if next > now then return next - now end
if spacing > 0 then redis.call('SET', KEYS[1], now + spacing, 'PX', spacing + 1000) end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[3])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]) * 2)
return 0
`;

/** How soon to ask again when every slot is taken (slots free as polls end, with no message). */
const FULL_RETRY_MS = 20;

export class SharedPollGate implements PollGate {
  private readonly local: LocalPollGate;
  private readonly keys: [string, string];
  private readonly spacing: number;
  private fallbackDivisor = 1;
  private closed = false;
  private fellBack = false;

  constructor(
    private readonly redis: RedisLink,
    upstream: string,
    private readonly caps: PollCaps,
    /** How long a slot outlives a poll that never reported its end: the poll's lease. */
    private readonly slotMs: number,
    private readonly live: LiveInstances | undefined,
    private readonly logger: Logger,
  ) {
    this.local = new LocalPollGate(caps);
    this.keys = [redis.name(`poll:${upstream}:next`), redis.name(`poll:${upstream}:running`)];
    this.spacing = pollSpacingMs(caps.perSecond);
  }

  async take(): Promise<() => void> {
    const slot = randomUUID();
    for (;;) {
      if (this.closed) throw new Error('poll gate closed');
      const wait = this.redis.up ? await this.ask(slot) : undefined;
      if (wait === undefined) return this.fallback();
      if (wait === 0) return () => void this.give(slot);
      // A little jitter, so the instances' waiters do not all ask in the same millisecond.
      await sleep(wait + Math.random() * 5);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.local.close();
  }

  private async ask(slot: string): Promise<number | undefined> {
    try {
      const wait = await this.redis.client.eval(
        TAKE,
        2,
        ...this.keys,
        this.spacing,
        this.caps.concurrency,
        slot,
        this.slotMs,
        FULL_RETRY_MS,
      );
      if (this.fellBack) this.logger.info('video poller: Redis is back; poll caps are shared again');
      this.fellBack = false;
      return typeof wait === 'number' ? wait : undefined;
    } catch {
      return undefined; // a call that timed out may have taken a slot: it lapses after slotMs
    }
  }

  private async give(slot: string): Promise<void> {
    if (!this.redis.up) return; // the slot lapses
    await this.redis.client.zrem(this.keys[1], slot).catch(() => 0);
  }

  /** This instance's share of the caps, for as long as Redis does not answer; logged once per outage. */
  private fallback(): Promise<() => void> {
    const instances = Math.max(1, this.live?.last ?? 1);
    if (!this.fellBack) {
      this.logger.warn(
        { instances },
        'video poller: Redis unreachable; poll caps fall back to local caps divided among instances',
      );
      this.fellBack = true;
    }
    if (instances !== this.fallbackDivisor) {
      this.fallbackDivisor = instances;
      this.local.resize({
        concurrency: Math.max(1, Math.floor(this.caps.concurrency / instances)),
        perSecond: this.caps.perSecond / instances,
      });
    }
    return this.local.take();
  }
}
