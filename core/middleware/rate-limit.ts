/**
 * Per-key requests per minute, fixed one-minute windows. Over the limit → 429 with an integer
 * `Retry-After` (seconds to the window's end). A key's own `rate_limit_rpm`, then `per_key` in
 * gateway.yaml, then the default decide its limit.
 * @example - rate-limit: { backend: memory, requests_per_minute: 600, per_key: { sk-AbCdEfGh: 60 } }
 */
import { inject } from 'tsyringe';
import { z } from 'zod';
import type { GatewayContext } from '../context';
import { PluginOptionsToken } from '../di';
import { Errors } from '../errors';
import { middlewarePlugin, type Middleware, type Next } from '../plugin';
import type { CounterStore } from '../rate-limit/counter-store';
import { MemoryCounterStore } from '../rate-limit/memory-counter-store';

const WINDOW_MS = 60_000;

export const rateLimitOptions = z
  .object({
    backend: z.enum(['memory']).default('memory'),
    requests_per_minute: z.number().int().positive().default(600),
    /** Limits by key id (the key's visible prefix). */
    per_key: z.record(z.string(), z.number().int().positive()).default({}),
  })
  .strict();
type RateLimitOptions = z.output<typeof rateLimitOptions>;

@middlewarePlugin('rate-limit', rateLimitOptions)
export class RateLimitMiddleware implements Middleware {
  private readonly counters: CounterStore = new MemoryCounterStore();

  constructor(@inject(PluginOptionsToken) private readonly options: RateLimitOptions) {}

  async handle(ctx: GatewayContext, next: Next): Promise<void> {
    // Without auth in the pipeline, the client address is the subject.
    const subject = ctx.key?.id ?? ctx.req.socket.remoteAddress ?? 'unknown';
    const limit =
      ctx.key?.rate_limit_rpm ?? this.options.per_key[subject] ?? this.options.requests_per_minute;
    const { count, resetInMs } = await this.counters.hit(subject, WINDOW_MS);
    if (count > limit) throw Errors.rateLimited(Math.max(1, Math.ceil(resetInMs / 1000)));
    return next();
  }
}
