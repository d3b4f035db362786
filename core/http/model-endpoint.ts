/**
 * The endpoint behind every model-routed API: the chosen upstream's plugin validates and maps the request,
 * the proxy forwards it. No API or provider is special-cased here: plugins declare the APIs they serve.
 */
import { Errors } from '../errors';
import type { ModelApi } from '../plugin';
import { RELAY_POLICY, type EventHook } from '../proxy/stream-relay';
import type { UpstreamProxy } from '../proxy/upstream-proxy';
import type { Endpoint } from './endpoint';

export function modelEndpoint(api: ModelApi, proxy: UpstreamProxy, hooks: readonly EventHook[]): Endpoint {
  return {
    id: api.id,
    method: api.method,
    path: api.path,
    routedByModel: true,
    serves: (model) => model.api.id === api.id,
    async handle(ctx) {
      const target = ctx.target;
      // The composition root refuses a pipeline without model-router, so this is a programming error.
      if (!target) throw Errors.internal(new Error('no model-router stage in the pipeline'));
      const plugin = target.upstream.plugin;
      // The composition root checks that every proxied model's plugin can prepare requests.
      if (!plugin.prepare)
        throw Errors.internal(new Error(`${target.upstream.name} cannot prepare requests`));
      const request = await plugin.prepare(ctx, target.spec, target.upstreamModel);
      await proxy.forward(ctx, target.upstream, request, {
        dialect: api.dialect,
        relay: ctx.get(RELAY_POLICY),
        hooks,
      });
    },
  };
}
