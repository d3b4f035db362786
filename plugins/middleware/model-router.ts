/**
 * Picks the upstream from the body's `model`: 404 for a model this endpoint does not serve (naming the
 * endpoints that do), 403 for a model the key or its team may not use (both lists must allow it; the
 * message says which refused), 503 when all its upstreams are ejected. Endpoints not routed by model pass through.
 */
import { inject } from 'tsyringe';
import {
  type Catalogue,
  CatalogueToken,
  type Middleware,
  type Next,
  type Resilience,
  ResilienceToken,
} from '../../core/kit/stage';
import { definePlugin, Errors, type GatewayContext } from '../../core/kit/plugin';

@definePlugin({
  kind: 'middleware',
  name: 'model-router',
  after: { auth: "it checks the model against the key's and its team's allowed models" },
})
export class ModelRouterMiddleware implements Middleware {
  constructor(
    @inject(CatalogueToken) private readonly catalogue: Catalogue,
    @inject(ResilienceToken) private readonly resilience: Resilience,
  ) {}

  async handle(ctx: GatewayContext, next: Next): Promise<void> {
    if (!ctx.endpoint.routedByModel) return next();
    const body = await ctx.json();
    const model = body.model;
    if (typeof model !== 'string' || model === '') {
      throw Errors.invalidRequest("field 'model' is required and must be a non-empty string");
    }
    // Ejected upstreams are passed over; 503 upstream_unavailable when the model has none left.
    const target = this.catalogue.resolve(ctx.endpoint, model, this.resilience.health);
    const allowed = ctx.key?.allowed_models;
    if (allowed?.length && !allowed.includes(model)) throw Errors.modelNotAllowed(model);
    const teamAllowed = ctx.team?.allowed_models;
    if (teamAllowed?.length && !teamAllowed.includes(model)) throw Errors.teamModelNotAllowed(model);
    ctx.target = target;
    ctx.stream = body.stream === true;
    return next();
  }
}
