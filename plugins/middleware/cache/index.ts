/**
 * A response cache: a call that repeats an earlier one (the same scope, endpoint, model and body, see
 * cache-key.ts) is answered from the stored answer, in the client's API, without the upstream. A JSON
 * call is answered with the stored body, a streamed one with the stored events (the chat usage chunk
 * as this client asked, replay.ts). Only complete, successful answers are stored: never an error, a cut
 * or ended stream, a stage's own answer, one a stage nearer the upstream changed, or one over
 * `max_entry_size`. Each answer says `x-gateway-cache: hit | miss | bypass`; a hit also carries `age`.
 *
 * A hit is recorded by usage-metering at no cost, with what it saved; it counts against requests per
 * minute and concurrency (rate-limit comes before it) and not against tokens per minute or budgets.
 * Auth and model-router come before it, so a revoked key or one that may not use the model never
 * reaches an entry. Stages listed before the cache (guardrails) act on every hit again.
 * @example
 * - cache: { ttl: 10m, scope: key, backend: auto, max_entry_size: 1mb, memory: 256mb }
 */
import { inject } from 'tsyringe';
import type { JsonObject } from '../../../core/kit/json';
import type { Logger } from 'pino';
import {
  ConfigError,
  definePlugin,
  type GatewayContext,
  globMatcher,
  LoggerToken,
  StateKey,
} from '../../../core/kit/plugin';
import { type EventFilter, type JsonAnswer, type Middleware, type Next } from '../../../core/kit/stage';
import {
  type KeptState,
  KeptStateToken,
  type PluginAdminRoutes,
  PluginAdminRoutesToken,
  type PluginMetrics,
  PluginMetricsToken,
  type RedisLink,
  RedisToken,
} from '../../../core/kit/tokens';
import { cacheKey, scopeOf } from './cache-key';
import { cacheMetrics, type CacheMetrics, type CacheResult, type CurrentStore } from './cache-metrics';
import { clearRoute } from './clear-route';
import type { CacheEntry, CacheStore } from './entry';
import { MemoryCacheStore } from './memory-store';
import { CACHED_APIS, cacheOptions, type CacheOptions } from './options';
import { RedisCacheStore } from './redis-store';
import { ageOf, requestControl, type RequestControl } from './request-control';
import { Recorder, type Pending } from './recorder';
import { replayed } from './replay';

export { cacheOptions };

const PENDING = new StateKey<Pending>('cache', 'pending');

@definePlugin({
  kind: 'middleware',
  name: 'cache',
  options: cacheOptions,
  after: {
    'rate-limit': 'a hit counts against requests per minute and concurrency',
    budget: 'a budget that is spent refuses hits too',
    'usage-metering': 'a hit is recorded (at no cost) only by a usage-metering before it',
  },
  requires: { 'model-router': 'an entry is the routed model’s, and a key must be allowed it first' },
})
export class CacheMiddleware implements Middleware {
  private readonly store: CacheStore;
  private readonly metrics: CacheMetrics;
  private readonly endpoints: ReadonlySet<string>;
  private readonly models: readonly ((id: string) => boolean)[];

  constructor(
    private readonly options: CacheOptions,
    @inject(RedisToken) redis: RedisLink | undefined,
    @inject(LoggerToken) logger: Logger,
    @inject(KeptStateToken) kept: KeptState,
    @inject(PluginMetricsToken) metrics: PluginMetrics,
    @inject(PluginAdminRoutesToken) routes: PluginAdminRoutes,
  ) {
    const backend = options.backend === 'auto' ? (redis ? 'redis' : 'memory') : options.backend;
    if (backend === 'redis' && !redis)
      throw new ConfigError('cache.backend', 'redis needs redis.url (or REDIS_URL) to be set');
    const current = kept.keep<CurrentStore>('cache:current', () => ({ store: undefined }));
    this.metrics = cacheMetrics(metrics, current);
    // A reload keeps the entries: only a new backend or memory bound starts an empty store.
    this.store = kept.keep(`cache:${backend}:${options.memory}`, () =>
      redis && backend === 'redis'
        ? new RedisCacheStore(redis, logger)
        : new MemoryCacheStore(options.memory, () => this.metrics.evicted()),
    );
    current.store = this.store;
    routes.add(clearRoute(current));
    this.endpoints = new Set(options.endpoints.map((api) => CACHED_APIS[api]));
    this.models = options.models.map(globMatcher);
  }

  handle(ctx: GatewayContext, next: Next): Promise<void> {
    const control = requestControl(ctx.headers['cache-control']);
    if (!control.write || !this.serves(ctx)) return this.pass(ctx, 'bypass', next);
    return this.lookUp(ctx, control, next);
  }

  /** Answers a fresh stored entry, or passes the call on to be stored, awaiting `next` (Middleware.handle). */
  private async lookUp(ctx: GatewayContext, control: RequestControl, next: Next): Promise<void> {
    const body = await ctx.json();
    const model = typeof body.model === 'string' ? body.model : ctx.target!.spec.id;
    const scope = scopeOf(ctx, this.options.scope);
    const key = cacheKey(scope, ctx.endpoint.id, model, ctx.stream, body);
    const found = control.read ? this.store.get(key) : undefined;
    // The memory store answers at once: no promise to wait for.
    const entry = found instanceof Promise ? await found : found;
    const now = Date.now();
    if (entry && (control.maxAge === undefined || ageOf(entry.meta.stored_at, now) <= control.maxAge)) {
      await ctx.check(); // the canonical body leaves members out: this call's own must be valid too
      this.hit(ctx, entry, now, body);
      return;
    }
    ctx.set(PENDING, { key, model, body: undefined, changed: false });
    await this.pass(ctx, 'miss', next);
  }

  response(ctx: GatewayContext, answer: JsonAnswer): void {
    const pending = ctx.get(PENDING);
    if (!pending || answer.status !== 200 || answer.changed) return;
    const { bytes } = answer;
    // Kept as text: a small body's Buffer may sit in Node's shared 8 kB pool slab, which it would keep
    // alive beyond what the memory bound counts; a copy of its own (allocUnsafeSlow) costs more than this.
    if (bytes.length <= this.options.max_entry_size) pending.body = bytes.toString('utf8');
  }

  events(ctx: GatewayContext): EventFilter | undefined {
    const pending = ctx.get(PENDING);
    return pending && new Recorder(pending, this.options.max_entry_size);
  }

  finish(ctx: GatewayContext): void {
    const pending = ctx.get(PENDING);
    if (!pending?.body || pending.changed || !ctx.usage) return;
    if (ctx.outcome !== 'ok' || ctx.status !== 200 || ctx.answeredBy !== undefined) return;
    const meta = {
      model: pending.model,
      key_id: ctx.key?.id ?? null,
      team_id: ctx.team?.id ?? null,
      endpoint: ctx.endpoint.id,
      stored_at: Date.now(),
      usage: ctx.usage,
    };
    this.store.set(pending.key, { meta, body: pending.body }, this.options.ttl);
  }

  /** Whether this call is one the cache serves: a routed model and endpoint it was given. */
  private serves(ctx: GatewayContext): boolean {
    const { target } = ctx;
    if (!target || !this.endpoints.has(ctx.endpoint.id)) return false;
    return this.models.some((matches) => matches(target.spec.id));
  }

  private pass(ctx: GatewayContext, result: CacheResult, next: Next): Promise<void> {
    this.told(ctx, result);
    (ctx.replyHeaders ??= {})['x-gateway-cache'] = result;
    return next();
  }

  /** Answers from `entry`: the stored body or events, recorded with the stored usage at no cost. */
  private hit(ctx: GatewayContext, entry: CacheEntry, now: number, asked: JsonObject): void {
    this.told(ctx, 'hit');
    const headers = { 'x-gateway-cache': 'hit', age: String(ageOf(entry.meta.stored_at, now)) };
    const { body, meta } = entry;
    const { usage } = meta;
    if (typeof body === 'string') ctx.answer({ json: Buffer.from(body), headers, usage, replayed: true });
    else
      ctx.answer({ events: replayed(ctx.endpoint.id, body, asked, usage), headers, usage, replayed: true });
  }

  private told(ctx: GatewayContext, result: CacheResult): void {
    this.metrics.answered(result);
    ctx.trace?.attribute('gateway.cache', result);
  }
}
