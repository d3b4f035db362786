/**
 * Announces that a key changed (updated, disabled, expired, deleted), by id, to this instance at once and
 * to every other instance over Redis pub/sub when Redis is configured. Listeners evict the key from the
 * lookup cache and end the streams of a key that no longer works.
 *
 * Delivery is best effort: a message published while Redis is down is lost. Nothing depends on it alone:
 * the lookup cache's TTL bounds how long another instance serves a stale record, and the revocation sweep
 * re-reads the keys that have open streams (see key-revocation.ts). Pub/sub only makes both fast.
 */
import type { Logger } from 'pino';
import type { RedisLink } from '../redis/redis-link';

/** `deleted`: the key is gone; `changed`: anything else (the record must be read again to know what). */
export type KeyEventKind = 'changed' | 'deleted';

export type KeyEventHandler = (id: string, kind: KeyEventKind) => void;

interface KeyEventMessage {
  readonly id: string;
  readonly kind: KeyEventKind;
  /** The instance that published it: it has handled the event already. */
  readonly from: string;
}

export const KEY_EVENTS_CHANNEL = 'keys:changed';

export class KeyEvents {
  private readonly handlers = new Set<KeyEventHandler>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly instance: string,
    private readonly redis: RedisLink | undefined,
    private readonly logger: Logger,
    /** Another kind of record's changes (admin tokens) travel the same way on their own channel. */
    private readonly channel: string = KEY_EVENTS_CHANNEL,
  ) {}

  /** Starts receiving other instances' events (a no-op without Redis). */
  start(): void {
    this.unsubscribe ??= this.redis?.subscribe(this.channel, (text) => this.receive(text));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  on(handler: KeyEventHandler): void {
    this.handlers.add(handler);
  }

  /** Tells this instance at once, then the others; never throws (see the delivery note above). */
  emit(id: string, kind: KeyEventKind): void {
    this.deliver(id, kind);
    if (!this.redis?.up) return;
    const message: KeyEventMessage = { id, kind, from: this.instance };
    this.redis.publish(this.channel, JSON.stringify(message)).catch((e: Error) => {
      this.logger.warn(
        { err: e.message, key: id },
        'key event not published; other instances catch up by TTL',
      );
    });
  }

  private receive(text: string): void {
    const message = parse(text);
    if (message && message.from !== this.instance) this.deliver(message.id, message.kind);
  }

  private deliver(id: string, kind: KeyEventKind): void {
    for (const handler of this.handlers) {
      try {
        handler(id, kind);
      } catch (e) {
        this.logger.error({ err: e, key: id }, 'key event handler failed');
      }
    }
  }
}

/** The message, or undefined for anything else on the channel (another version, a stray publish). */
function parse(text: string): KeyEventMessage | undefined {
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
