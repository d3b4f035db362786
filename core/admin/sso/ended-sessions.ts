/**
 * Sessions signed out before their expiry. A session cookie stays valid by its signature until it
 * expires, so signing out remembers the session's id as ended until then: in Redis when the gateway has
 * it, so every instance refuses the session, else in this instance's memory.
 */
import { Errors } from '../../base/errors';
import type { RedisLink } from '../../redis/redis-link';

export interface EndedSessions {
  /** Remembers session `id` as ended until `until` (ms since the epoch), when it expires anyway. */
  end(id: string, until: number): Promise<void>;
  isEnded(id: string): Promise<boolean>;
}

/** One instance's own list; what has expired is dropped as new ends arrive. */
export class MemoryEndedSessions implements EndedSessions {
  private readonly ended = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  end(id: string, until: number): Promise<void> {
    const now = this.now();
    for (const [other, expiry] of this.ended) if (expiry <= now) this.ended.delete(other);
    this.ended.set(id, until);
    return Promise.resolve();
  }

  isEnded(id: string): Promise<boolean> {
    return Promise.resolve((this.ended.get(id) ?? 0) > this.now());
  }
}

/** Shared by every instance. Redis out of reach refuses the check (503) rather than guess: a signed-out session must stay out. */
export class RedisEndedSessions implements EndedSessions {
  constructor(
    private readonly redis: RedisLink,
    private readonly now: () => number = Date.now,
  ) {}

  async end(id: string, until: number): Promise<void> {
    const ttl = Math.max(1, Math.ceil(until - this.now()));
    await this.ask(() => this.redis.client.set(this.name(id), '1', 'PX', ttl));
  }

  async isEnded(id: string): Promise<boolean> {
    return (await this.ask(() => this.redis.client.exists(this.name(id)))) === 1;
  }

  private name(id: string): string {
    return this.redis.name(`console-session-ended:${id}`);
  }

  private async ask<T>(command: () => Promise<T>): Promise<T> {
    if (!this.redis.up) throw Errors.storeUnavailable(1);
    try {
      return await command();
    } catch (e) {
      throw Errors.storeUnavailable(1, e);
    }
  }
}

export const endedSessions = (redis: RedisLink | undefined): EndedSessions =>
  redis ? new RedisEndedSessions(redis) : new MemoryEndedSessions();
