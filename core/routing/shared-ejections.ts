/**
 * Ejections shared over Redis, so that an upstream one instance finds failing is left out by all: each
 * ejection is published (instances running now apply it at once) and stored with its duration as expiry
 * (an instance starting later reads the ones still running). Times travel as durations, not clock
 * readings, so instances whose clocks differ agree on when an upstream returns.
 *
 * Best effort, never on a request's path: a lost message only means another instance finds the failures
 * itself, after its own run of them.
 */
import type { Logger } from 'pino';
import type { RedisLink } from '../redis/redis-link';
import type { Ejection } from './upstream-health';

export const EJECTIONS_CHANNEL = 'upstreams:ejected';
const KEY = 'upstreams:ejected:';

interface EjectionMessage {
  readonly upstream: string;
  /** Milliseconds from sending until it returns. */
  readonly ms: number;
  readonly times: number;
  readonly from: string;
}

export class SharedEjections {
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly redis: RedisLink,
    private readonly instance: string,
    private readonly logger: Logger,
    /** Applies another instance's ejection locally. */
    private readonly apply: (ejection: Ejection) => void,
  ) {}

  /** Subscribes, then reads the ejections still running for `upstreams` (those already decided elsewhere). */
  async start(upstreams: readonly string[]): Promise<void> {
    this.unsubscribe ??= this.redis.subscribe(EJECTIONS_CHANNEL, (text) => this.receive(text));
    if (!this.redis.up || upstreams.length === 0) return;
    try {
      const pipeline = this.redis.client.pipeline();
      for (const name of upstreams)
        pipeline.get(this.redis.name(KEY + name)).pttl(this.redis.name(KEY + name));
      const replies = (await pipeline.exec()) ?? [];
      const now = Date.now();
      upstreams.forEach((upstream, i) => {
        const times = Number(replies[2 * i]?.[1]);
        const ms = Number(replies[2 * i + 1]?.[1]);
        if (Number.isInteger(times) && times > 0 && ms > 0) this.apply({ upstream, until: now + ms, times });
      });
    } catch (e) {
      this.logger.warn(
        { err: (e as Error).message },
        'shared ejections not read; this instance counts alone',
      );
    }
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Tells the other instances, now and later; never throws, never waited for by a request. */
  publish(ejection: Ejection): void {
    if (!this.redis.up) return;
    const ms = ejection.until - Date.now();
    if (ms <= 0) return;
    const message: EjectionMessage = {
      upstream: ejection.upstream,
      ms,
      times: ejection.times,
      from: this.instance,
    };
    const key = this.redis.name(KEY + ejection.upstream);
    Promise.all([
      this.redis.client.set(key, String(ejection.times), 'PX', ms),
      this.redis.publish(EJECTIONS_CHANNEL, JSON.stringify(message)),
    ]).catch((e: Error) => {
      this.logger.warn(
        { err: e.message, upstream: ejection.upstream },
        'ejection not shared; other instances find the failures themselves',
      );
    });
  }

  private receive(text: string): void {
    const message = parse(text);
    if (!message || message.from === this.instance) return;
    this.apply({ upstream: message.upstream, until: Date.now() + message.ms, times: message.times });
  }
}

/** The message, or undefined for anything else on the channel. */
function parse(text: string): EjectionMessage | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { upstream, ms, times, from } = value as Record<string, unknown>;
    if (typeof upstream !== 'string' || typeof from !== 'string') return undefined;
    if (typeof ms !== 'number' || !(ms > 0) || typeof times !== 'number') return undefined;
    return { upstream, ms, times, from };
  } catch {
    return undefined;
  }
}
