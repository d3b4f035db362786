/**
 * Placements on Redis, shared by every instance using it: one key per session
 * (`<key_prefix>affinity:<model>:<sha256 of the session>`), its value the target's name, its expiry the
 * route's `ttl`, renewed by each call. One script reads and decides atomically, so two instances placing
 * a new session at once agree on the first placement written.
 *
 * Redis never fails a call: while the link is down, or when the script fails or times out (the link's
 * command timeout), the call takes the route's normal weighted choice, unplaced. After a failure on a
 * link that still looks up, Redis is left alone for a moment rather than costing each call a timeout.
 */
import type { Logger } from 'pino';
import { RedisScript, type RedisLink } from '../../../core/kit/tokens';
import type { Placements } from './placements';

/** How long Redis is skipped after a failed script on a link that still reports itself up. */
const PAUSE_AFTER_FAILURE_MS = 1_000;

/**
 * KEYS: the session's key. ARGV: ttl ms, the candidate, then every usable placement. Returns the kept
 * placement when it is usable (its expiry renewed), else the candidate, now kept.
 */
const PLACE = new RedisScript(`
local placed = redis.call('GET', KEYS[1])
if placed then
  for i = 3, #ARGV do
    if ARGV[i] == placed then
      redis.call('PEXPIRE', KEYS[1], ARGV[1])
      return placed
    end
  end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
return ARGV[2]
`);

export class RedisPlacements implements Placements {
  private pausedUntil = 0;
  private degraded = false;

  constructor(
    private readonly redis: RedisLink,
    private readonly logger: Logger,
  ) {}

  place(key: string, candidate: string, usable: readonly string[], ttlMs: number): string | Promise<string> {
    if (!this.redis.up || Date.now() < this.pausedUntil) {
      this.failed('not connected');
      return candidate;
    }
    const args = [Math.ceil(ttlMs), candidate, ...usable];
    return PLACE.run(this.redis.client, [this.redis.name(key)], args).then(
      (placed) => {
        this.recovered();
        return typeof placed === 'string' ? placed : candidate;
      },
      (e: unknown) => {
        this.pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS;
        this.failed(e instanceof Error ? e.message : String(e));
        return candidate;
      },
    );
  }

  /** Logged once per outage. */
  private failed(reason: string): void {
    if (this.degraded) return;
    this.degraded = true;
    this.logger.warn(
      { err: reason },
      'session affinity: redis did not answer; calls take the normal weighted choice until it does',
    );
  }

  private recovered(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.logger.info('session affinity: redis answers again; sessions are placed');
  }
}
