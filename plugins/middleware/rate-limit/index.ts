/**
 * Rate limits: requests and tokens per window (a minute) and requests in flight, per key, per team (over
 * all its keys) and per routed model or upstream, decided in one step per request
 * (plugins/middleware/rate-limit/). Over a limit → 429 `rate_limited`, naming whose limit it was (the
 * key's, its team's, the model's, the upstream's), with a whole-seconds `Retry-After` after which the
 * same request is admitted (for a concurrency limit, one second). Tokens are the call's real usage, counted when it ends; a call starts
 * only while the window holds fewer tokens than the limit.
 *
 * It comes after `model-router`: a model's or upstream's cap needs the routed model, and checking every
 * limit of a request in one atomic decision means a refusal by one never uses up another.
 *
 * Backends: `memory` counts in this process; `redis` shares exact counts between every instance using
 * the same Redis (and falls back to local counts at limit ÷ live instances while Redis cannot answer);
 * `auto` is redis when `redis.url` is set.
 *
 * Every answer the stage decides on, 429s included, carries OpenAI's `x-ratelimit-*` headers for the
 * binding request and token limits, from the same decision (plugins/middleware/rate-limit/quota-headers.ts).
 * @example
 * - rate-limit:
 *     requests_per_minute: 600
 *     tokens_per_minute: 200000
 *     concurrent: 20
 *     per_key: { sk-AbCdEfGh: 60 }
 *     per_model: { 'modela-*': { rpm: 1000, tpm: 2000000, concurrent: 50 } }
 *     per_upstream: { modeld-main: { concurrent: 100 } }
 */
import { inject } from 'tsyringe';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Admission, Decision, Limiter } from './limiter';
import { FallbackLimiter } from './fallback-limiter';
import { MemoryLimiter } from './memory-limiter';
import { RedisLimiter } from './redis-limiter';
import { addQuotaHeaders } from './quota-headers';
import { RuleTable, whoseLimit } from './rules';
import {
  ConfigError,
  definePlugin,
  duration,
  Errors,
  type GatewayContext,
  LoggerToken,
  StateKey,
  traced,
} from '../../../core/kit/plugin';
import { type Middleware, type Next } from '../../../core/kit/stage';
import {
  type KeptState,
  KeptStateToken,
  type LiveInstances,
  LiveInstancesToken,
  type RedisLink,
  RedisToken,
} from '../../../core/kit/tokens';

const positive = z.number().int().positive();
const caps = z
  .object({ rpm: positive.optional(), tpm: positive.optional(), concurrent: positive.optional() })
  .strict();

export const rateLimitOptions = z
  .object({
    backend: z.enum(['auto', 'memory', 'redis']).default('auto'),
    requests_per_minute: positive.default(600),
    /** Unset: no token limit unless the key has one. */
    tokens_per_minute: positive.optional(),
    /** Unset: no concurrency limit unless the key has one. */
    concurrent: positive.optional(),
    /** Requests per minute by key id (the key's visible prefix); the key's own `rate_limit_rpm` wins. */
    per_key: z.record(z.string(), positive).default({}),
    /** Caps by model id or `*` pattern; each matching model counts on its own. */
    per_model: z.record(z.string(), caps).default({}),
    /** Caps by upstream name (its key under `upstreams:`). */
    per_upstream: z.record(z.string(), caps).default({}),
    /** The window the per-minute limits count in; shorter only for tests. */
    window: duration.refine((ms) => ms >= 1, 'must be at least 1ms').default(60_000),
    /** A concurrency slot of an instance that died frees after this (redis); renewed while a call runs. */
    lease: duration.refine((ms) => ms >= 100, 'must be at least 100ms').default(30_000),
  })
  .strict();
type RateLimitOptions = z.output<typeof rateLimitOptions>;

const ADMITTED = new StateKey<Admission>('rate-limit', 'admission');

@definePlugin({
  kind: 'middleware',
  name: 'rate-limit',
  options: rateLimitOptions,
  after: { auth: 'it reads the API key that auth sets' },
  requires: { 'model-router': 'its per-model and per-upstream caps need the routed model' },
})
export class RateLimitMiddleware implements Middleware {
  readonly limiter: Limiter;
  private readonly rules: RuleTable;

  constructor(
    options: RateLimitOptions,
    @inject(RedisToken) redis: RedisLink | undefined,
    @inject(LiveInstancesToken) live: LiveInstances | undefined,
    @inject(LoggerToken) logger: Logger,
    @inject(KeptStateToken) kept: KeptState,
  ) {
    this.rules = new RuleTable(options);
    const backend = options.backend === 'auto' ? (redis ? 'redis' : 'memory') : options.backend;
    if (backend === 'redis' && !redis) {
      throw new ConfigError('rate-limit.backend', 'redis needs redis.url (or REDIS_URL) to be set');
    }
    // A reload keeps the counts (windows, slots in use): new limits apply to the same windows.
    const { window, lease } = options;
    this.limiter = kept.keep(`rate-limit:${backend}:${window}:${lease}`, () => {
      if (backend === 'memory' || !redis) return new MemoryLimiter(window);
      const shared = new RedisLimiter(redis, { windowMs: window, leaseMs: lease });
      return new FallbackLimiter(shared, redis, live, logger, window);
    });
  }

  handle(ctx: GatewayContext, next: Next): Promise<void> {
    if (ctx.endpoint.rateLimited === false) return next();
    const decision = this.limiter.admit(this.rules.rulesFor(ctx));
    if (!(decision instanceof Promise)) return this.proceed(ctx, decision, next);
    // Decided on Redis: the round trip is the request's I/O.
    return traced(ctx, 'rate limit decision', () => decision).then((d) => this.proceed(ctx, d, next));
  }

  /** Throws 429 for a refusal (the pipeline's promise rejects with it), or records the admission and goes on. */
  private proceed(ctx: GatewayContext, decision: Decision, next: Next): Promise<void> {
    ctx.replyHeaders = addQuotaHeaders(ctx.replyHeaders, decision.quota);
    if (!decision.admitted) {
      const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw Errors.rateLimited(retryAfter, whoseLimit(decision.rule));
    }
    ctx.set(ADMITTED, decision.admission);
    return next();
  }

  finish(ctx: GatewayContext): void {
    const admission = ctx.get(ADMITTED);
    if (!admission) return;
    const usage = ctx.usage;
    // A replayed answer (a cache's hit) used no upstream tokens: it counts as a request, not as tokens.
    const tokens =
      usage && !ctx.replayed ? (usage.totalTokens ?? usage.promptTokens + usage.completionTokens) : 0;
    const settled = this.limiter.settle(admission, tokens);
    if (settled) settled.catch(() => undefined);
  }
}
