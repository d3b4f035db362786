/** Team changes, announced to every instance (core/redis/change-events.ts says how, and how reliably). */
import type { Logger } from 'pino';
import { ChangeEvents } from '../redis/change-events';
import type { RedisLink } from '../redis/redis-link';

export const TEAM_EVENTS_CHANNEL = 'teams:changed';

export class TeamEvents extends ChangeEvents {
  constructor(instance: string, redis: RedisLink | undefined, logger: Logger) {
    super({ channel: TEAM_EVENTS_CHANNEL, subject: 'team' }, instance, redis, logger);
  }
}
