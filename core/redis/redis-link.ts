/**
 * The gateway's link to Redis, when `redis.url` (or REDIS_URL) is set: one connection for commands and
 * scripts, and one for subscriptions (a subscribed connection can do nothing else). Commands fail fast
 * rather than wait: no offline queue, a short command timeout, and no retry of a command (a script that
 * timed out may still have run: running it again could count a request twice). The connections
 * reconnect by themselves; `up` tells callers whether to ask Redis now or use their local fallback.
 */
import type { Redis, RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { RedisConfig } from '../../config/schema';
import { token } from '../base/token';

/** Reconnect quickly at first, then every second: a restarted Redis is used again within about a second. */
const reconnectDelay = (attempt: number): number => Math.min(attempt * 100, 1_000);

export class RedisLink {
  readonly client: Redis;
  private subscriber: Redis | undefined;
  private readonly handlers = new Map<string, Set<(message: string) => void>>();

  private constructor(
    /** ioredis' client class, loaded by `connect`: a gateway without Redis never loads it (~50 ms of start-up). */
    private readonly Client: typeof Redis,
    private readonly config: RedisConfig,
    private readonly logger: Logger,
  ) {
    this.client = new Client(config.url, this.options());
    let wasUp = false;
    this.client.on('ready', () => {
      if (!wasUp) logger.info({ redis: redact(config.url) }, 'redis: connected');
      wasUp = true;
    });
    this.client.on('error', (e: Error) => {
      // Logged once per outage, not once per reconnect attempt.
      if (wasUp) logger.warn({ err: e.message }, 'redis: connection lost; limits fall back to local counts');
      wasUp = false;
    });
  }

  /**
   * Connects, waiting at most `waitMs` for the server. A server that is down at start-up does not stop
   * the gateway: it starts on its local fallbacks and uses Redis once it answers.
   */
  static async connect(config: RedisConfig, logger: Logger, waitMs = 2_000): Promise<RedisLink> {
    const { Redis: Client } = await import('ioredis');
    const link = new RedisLink(Client, config, logger);
    const ready = new Promise<boolean>((resolve) => {
      link.client.once('ready', () => resolve(true));
      setTimeout(() => resolve(false), waitMs).unref();
    });
    if (!(await ready)) {
      logger.warn({ redis: redact(config.url) }, 'redis: not reachable at start-up; using local fallbacks');
    }
    return link;
  }

  /** True while commands can be sent; when false, callers decide locally at once. */
  get up(): boolean {
    return this.client.status === 'ready';
  }

  /** A name in the gateway's own part of the server (`redis.key_prefix`). */
  name(suffix: string): string {
    return this.config.key_prefix + suffix;
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.client.publish(this.name(channel), message);
  }

  /** Calls `handler` with each message on `channel` (subscribing on first use). Returns an unsubscribe. */
  subscribe(channel: string, handler: (message: string) => void): () => void {
    const full = this.name(channel);
    const subscriber = this.subscriberConnection();
    let set = this.handlers.get(full);
    if (!set) {
      set = new Set();
      this.handlers.set(full, set);
      // Not connected yet: the 'ready' handler subscribes (commands are not queued while offline).
      if (subscriber.status === 'ready') this.subscribeAll(subscriber, [full]);
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  async close(): Promise<void> {
    const connections = this.subscriber ? [this.client, this.subscriber] : [this.client];
    await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
  }

  private subscriberConnection(): Redis {
    if (this.subscriber) return this.subscriber;
    // Subscribed on every 'ready', the first connection and each reconnect: ioredis' own autoResubscribe
    // renews only subscriptions that once succeeded, and with no offline queue one made while connecting fails.
    const subscriber = new this.Client(this.config.url, { ...this.options(), autoResubscribe: false });
    subscriber.on('ready', () => this.subscribeAll(subscriber, [...this.handlers.keys()]));
    subscriber.on('error', () => undefined); // the command connection logs outages
    subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(message);
    });
    this.subscriber = subscriber;
    return subscriber;
  }

  private subscribeAll(subscriber: Redis, channels: string[]): void {
    if (channels.length === 0) return;
    subscriber.subscribe(...channels).catch((e: Error) => {
      this.logger.warn({ err: e.message, channels }, 'redis: subscribe failed; retried on reconnect');
    });
  }

  private options(): RedisOptions {
    return {
      enableOfflineQueue: false,
      commandTimeout: this.config.command_timeout,
      connectTimeout: 1_000,
      maxRetriesPerRequest: 0,
      retryStrategy: reconnectDelay,
      // Do not queue commands during the ready check either: fail fast and fall back.
      enableReadyCheck: true,
    };
  }
}

/** The URL without its password, for logs. */
const redact = (url: string): string => url.replace(/\/\/([^@/]*):[^@/]*@/, '//$1:***@');

/** The link to Redis, or undefined when none is configured (each instance then counts alone). */
export const RedisToken = token<RedisLink | undefined>('RedisLink');
