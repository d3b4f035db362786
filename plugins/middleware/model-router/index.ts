/**
 * Picks the upstream from the body's `model`: 404 for a model this endpoint does not serve (naming the
 * endpoints that do), 403 for a model the key or its team may not use (both lists must allow it; the
 * message says which refused), 503 when all its upstreams are ejected. Endpoints not routed by model pass through.
 *
 * A route with `affinity` keeps each session on one target while it is in service
 * (session-affinity.ts); its placements are kept in this process, or on Redis when `redis.url` is set,
 * and outlive a reload. A route without it costs nothing more than the weighted choice.
 */
import { inject } from 'tsyringe';
import type { Logger } from 'pino';
import {
  type Middleware,
  modelRefusal,
  type Next,
  type RouteAffinity,
  type RouteTarget,
} from '../../../core/kit/stage';
import {
  type Catalogue,
  CatalogueToken,
  type KeptState,
  KeptStateToken,
  type RedisLink,
  RedisToken,
  type Resilience,
  ResilienceToken,
} from '../../../core/kit/tokens';
import { definePlugin, Errors, type GatewayContext, LoggerToken, traced } from '../../../core/kit/plugin';
import type { JsonObject } from '../../../core/kit/json';
import { MemoryPlacements } from './placements';
import { RedisPlacements } from './redis-placements';
import { SessionAffinity } from './session-affinity';

@definePlugin({
  kind: 'middleware',
  name: 'model-router',
  after: { auth: "it checks the model against the key's and its team's allowed models" },
})
export class ModelRouterMiddleware implements Middleware {
  private readonly affinity: SessionAffinity;

  constructor(
    @inject(CatalogueToken) private readonly catalogue: Catalogue,
    @inject(ResilienceToken) private readonly resilience: Resilience,
    @inject(RedisToken) redis: RedisLink | undefined,
    @inject(LoggerToken) logger: Logger,
    @inject(KeptStateToken) kept: KeptState,
  ) {
    // Kept across reloads: a session stays on its target while the new configuration still has it.
    this.affinity = kept.keep(`model-router:affinity:${redis ? 'redis' : 'memory'}`, () => {
      const placements = redis ? new RedisPlacements(redis, logger) : new MemoryPlacements();
      return new SessionAffinity(placements);
    });
  }

  handle(ctx: GatewayContext, next: Next): Promise<void> {
    return ctx.endpoint.routedByModel ? this.route(ctx, next) : next();
  }

  /** Picks the target for the body's model and awaits `next` (Middleware.handle). */
  private async route(ctx: GatewayContext, next: Next): Promise<void> {
    const body = await ctx.json();
    const model = body.model;
    if (typeof model !== 'string' || model === '') {
      throw Errors.invalidRequest("field 'model' is required and must be a non-empty string");
    }
    // Ejected upstreams are passed over; 503 upstream_unavailable when the model has none left.
    const target = this.catalogue.resolve(ctx.endpoint, model, this.resilience.health);
    const refusal = modelRefusal(ctx.key, ctx.team, model);
    if (refusal) throw refusal;
    const { affinity } = target.route;
    ctx.target = affinity ? await this.placed(ctx, body, target, affinity) : target;
    ctx.stream = body.stream === true;
    await next();
  }

  /** The target of the call's session, on a route with affinity. */
  private placed(
    ctx: GatewayContext,
    body: JsonObject,
    chosen: RouteTarget,
    affinity: RouteAffinity,
  ): RouteTarget | Promise<RouteTarget> {
    const request = { headers: ctx.headers, api: ctx.endpoint.api, body };
    const placed = this.affinity.place(affinity, request, chosen, this.resilience.health);
    // Placed on Redis: the round trip is the request's I/O.
    return placed instanceof Promise ? traced(ctx, 'session placement', () => placed) : placed;
  }
}
