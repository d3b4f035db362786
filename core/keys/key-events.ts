/** Key changes, announced to every instance (core/redis/change-events.ts says how, and how reliably). */
import type { Logger } from 'pino';
import { ChangeEvents } from '../redis/change-events';
import type { RedisLink } from '../redis/redis-link';

export const KEY_EVENTS_CHANNEL = 'keys:changed';

export class KeyEvents extends ChangeEvents {
  constructor(
    instance: string,
    redis: RedisLink | undefined,
    logger: Logger,
    /** Another kind of record's changes (admin tokens) travel the same way on their own channel. */
    channel: string = KEY_EVENTS_CHANNEL,
  ) {
    super({ channel, subject: channel === KEY_EVENTS_CHANNEL ? 'key' : channel }, instance, redis, logger);
  }
}
