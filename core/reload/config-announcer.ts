/**
 * Reloads across instances, through Redis: an instance that applied a new file says so on a channel,
 * and the others reload their own file (each instance reads its own copy: the message carries no
 * configuration). Each instance also records its status under its id, so `GET /admin/config` on any
 * of them lists the version every live instance runs.
 */
import type { Logger } from 'pino';
import type { RedisLink } from '../redis/redis-link';
import type { ConfigStatus } from './config-reloader';

const CHANNEL = 'config';
const MESSAGE_VERSION = 1;
/** An instance's status is written again this often, so one written while Redis was away reappears. */
const RECORD_EVERY_MS = 5_000;

/** The live instances' statuses; entries of instances no longer live are dropped on the way. */
const LIVE_STATUSES = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live = redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf')
local out = {}
local isLive = {}
for _, id in ipairs(live) do isLive[id] = true end
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  if isLive[all[i]] then table.insert(out, all[i + 1]) else redis.call('HDEL', KEYS[2], all[i]) end
end
return out
`;

/** One instance's entry: its status and its id. */
export type InstanceConfig = ConfigStatus & { readonly instance: string };

interface Announcement {
  readonly v: number;
  readonly instance: string;
  readonly hash: string;
}

export class ConfigAnnouncer {
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisLink,
    private readonly instance: string,
    private readonly status: () => ConfigStatus,
    private readonly logger: Logger,
  ) {}

  /** Calls `announced` with the hash another instance applied. */
  start(announced: (hash: string) => void): void {
    this.unsubscribe = this.redis.subscribe(CHANNEL, (text) => {
      const message = parse(text);
      if (message && message.instance !== this.instance) announced(message.hash);
    });
    void this.record();
    this.timer = setInterval(() => void this.record(), RECORD_EVERY_MS).unref();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    clearInterval(this.timer);
    if (this.redis.up)
      await this.redis.client.hdel(this.redis.name('config:instances'), this.instance).catch(() => 0);
  }

  /** Tells the others this instance applied `hash`; best effort (they also converge on their own watch). */
  async announce(hash: string): Promise<void> {
    await this.record();
    const message: Announcement = { v: MESSAGE_VERSION, instance: this.instance, hash };
    await this.redis.publish(CHANNEL, JSON.stringify(message)).catch((e: Error) => {
      this.logger.warn({ err: e }, 'configuration reload not announced to the other instances');
    });
  }

  /** Writes this instance's status now (after a reload refused too, so its error is seen everywhere). */
  async record(): Promise<void> {
    if (!this.redis.up) return;
    const entry: InstanceConfig = { instance: this.instance, ...this.status() };
    await this.redis.client
      .hset(this.redis.name('config:instances'), this.instance, JSON.stringify(entry))
      .catch(() => 0);
  }

  /** Every live instance's status, or undefined when Redis cannot answer. */
  async instances(): Promise<InstanceConfig[] | undefined> {
    try {
      const rows = (await this.redis.client.eval(
        LIVE_STATUSES,
        2,
        this.redis.name('instances'),
        this.redis.name('config:instances'),
      )) as string[];
      return rows.map((row) => JSON.parse(row) as InstanceConfig);
    } catch {
      return undefined;
    }
  }
}

function parse(text: string): Announcement | undefined {
  try {
    const message = JSON.parse(text) as Partial<Announcement>;
    if (
      message.v !== MESSAGE_VERSION ||
      typeof message.instance !== 'string' ||
      typeof message.hash !== 'string'
    )
      return undefined;
    return message as Announcement;
  } catch {
    return undefined;
  }
}
