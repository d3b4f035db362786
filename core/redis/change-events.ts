/**
 * Announces that a record changed (updated, disabled, expired, deleted), by id, to this instance at once
 * and to every other instance over Redis pub/sub when Redis is configured. Keys and teams each have
 * their own channel (core/keys/key-events.ts, core/teams/team-events.ts); listeners evict the record
 * from their lookup cache, and for keys end the streams of a key that no longer works.
 *
 * Delivery is best effort: a message published while Redis is down is lost. Nothing depends on it alone:
 * the lookup caches' TTL bounds how long another instance serves a stale record, and the key revocation
 * sweep re-reads the keys that have open streams (see key-revocation.ts). Pub/sub only makes both fast.
 */
import type { Logger } from 'pino';
import type { RedisLink } from './redis-link';

/** `deleted`: the record is gone; `changed`: anything else (the record must be read again to know what). */
export type ChangeKind = 'changed' | 'deleted';

export type ChangeHandler = (id: string, kind: ChangeKind) => void;

interface ChangeMessage {
  readonly id: string;
  readonly kind: ChangeKind;
  /** The instance that published it: it has handled the event already. */
  readonly from: string;
}

/** Where a kind of record's events travel, and its name in log lines (`key`, `team`). */
export interface ChangeChannel {
  readonly channel: string;
  readonly subject: string;
}

export class ChangeEvents {
  private readonly handlers = new Set<ChangeHandler>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly of: ChangeChannel,
    private readonly instance: string,
    private readonly redis: RedisLink | undefined,
    private readonly logger: Logger,
  ) {}

  /** Starts receiving other instances' events (a no-op without Redis). */
  start(): void {
    this.unsubscribe ??= this.redis?.subscribe(this.of.channel, (text) => this.receive(text));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  on(handler: ChangeHandler): void {
    this.handlers.add(handler);
  }

  /** Tells this instance at once, then the others; never throws (see the delivery note above). */
  emit(id: string, kind: ChangeKind): void {
    this.deliver(id, kind);
    if (!this.redis?.up) return;
    const message: ChangeMessage = { id, kind, from: this.instance };
    this.redis.publish(this.of.channel, JSON.stringify(message)).catch((e: Error) => {
      this.logger.warn(
        { err: e.message, [this.of.subject]: id },
        `${this.of.subject} event not published; other instances catch up by TTL`,
      );
    });
  }

  private receive(text: string): void {
    const message = parse(text);
    if (message && message.from !== this.instance) this.deliver(message.id, message.kind);
  }

  private deliver(id: string, kind: ChangeKind): void {
    for (const handler of this.handlers) {
      try {
        handler(id, kind);
      } catch (e) {
        this.logger.error({ err: e, [this.of.subject]: id }, `${this.of.subject} event handler failed`);
      }
    }
  }
}

/** The message, or undefined for anything else on the channel (another version, a stray publish). */
function parse(text: string): ChangeMessage | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { id, kind, from } = value as Record<string, unknown>;
    if (typeof id !== 'string' || typeof from !== 'string') return undefined;
    if (kind !== 'changed' && kind !== 'deleted') return undefined;
    return { id, kind, from };
  } catch {
    return undefined;
  }
}
