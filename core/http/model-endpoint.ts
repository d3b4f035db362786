/**
 * The endpoint behind every model-routed API: the chosen upstream's plugin validates and maps the request,
 * the proxy forwards it. No API or provider is special-cased here: plugins declare the APIs they serve,
 * and a model of another API is reached through the translator registered for the pair (ApiServing).
 *
 * An attempt that fails before any byte reached the client (see AttemptFailure) is tried once more on
 * the route's next target, within the retry budget; otherwise the failure is delivered as it came.
 */
import type { ApiTranslator } from '../contracts/translator';
import type { AttemptCause } from '../request/request-trace';
import type { GatewayContext } from '../contracts/context';
import type { Endpoint, ServedRequest } from '../request/served-request';
import type { ModelApi } from '../contracts/api';
import type { RouteTarget } from '../contracts/route';
import type { UpstreamRequest } from '../contracts/upstream';
import { Errors, GatewayError } from '../base/errors';
import { deliverFailure, type AttemptFailure, type AttemptResult } from '../proxy/exchange';
import type { AnswerPhases } from '../proxy/answer-phases';
import type { UpstreamProxy } from '../proxy/upstream-proxy';
import type { ApiServing } from '../routing/api-serving';
import { nextTarget, retryCause } from '../routing/catalogue';
import { translatedContext } from './translated-context';
import type { Resilience } from '../routing/resilience';

const FIRST: AttemptCause = Object.freeze({ kind: 'first' });

export function modelEndpoint(
  api: ModelApi,
  proxy: UpstreamProxy,
  phases: AnswerPhases,
  resilience: Resilience,
  serving: ApiServing,
): Endpoint {
  const { health, budget } = resilience;
  const settings = { api, phases };
  const prepare = (ctx: ServedRequest, target: RouteTarget): Promise<UpstreamRequest> => {
    const reach = serving.reach(api, target.spec);
    // The catalogue resolves only models this endpoint serves (`serves` below), so this is a programming error.
    if (!reach) throw Errors.internal(new Error(`${target.spec.id} is not served on ${api.id}`));
    return reach === 'native' ? prepareNative(ctx, target) : prepareTranslated(ctx, target, reach);
  };

  /**
   * An attempt's result, counted for or against its upstream by the caller that awaited it: an async
   * function around the attempt would add a promise and a turn to every call.
   */
  const counted = (ctx: ServedRequest, target: RouteTarget, result: AttemptResult): AttemptResult => {
    if (result === 'delivered') health.success(target.upstream.name);
    else if (result !== 'abandoned') resilience.failed(ctx.requestId, target.upstream.name, result);
    return result;
  };

  /**
   * The second and last attempt, on the route's next target; false when there is none to make (no
   * target left, the client gone, the budget spent, or the next target's plugin refusing the request).
   */
  const retry = async (
    ctx: ServedRequest,
    failed: RouteTarget,
    failure: AttemptFailure,
  ): Promise<boolean> => {
    const next = nextTarget(failed, health);
    if (!next || ctx.res.destroyed) return false;
    if (!budget.tryRetry()) {
      resilience.notRetried(ctx.requestId, failed.upstream.name, failure.reason);
      return false;
    }
    try {
      let request: UpstreamRequest;
      try {
        request = await prepare(ctx, next);
      } catch {
        return false; // the fallback cannot take this request: the client gets the first failure
      }
      ctx.target = next; // usage is metered as the model and upstream that served
      resilience.retried(ctx.requestId, failed.upstream.name, next.upstream.name, failure.reason);
      const why = retryCause(failed, next, failure.reason);
      const result = counted(ctx, next, await proxy.forward(ctx, next.upstream, request, settings, why));
      if (typeof result !== 'string') await deliverFailure(ctx, result, phases);
      return true;
    } finally {
      budget.retryEnded();
    }
  };

  return {
    id: api.id,
    method: api.method,
    path: api.path,
    routedByModel: true,
    api,
    serves: (model) => serving.reach(api, model) !== undefined,
    // The request the upstream would get, made and dropped: its family's 400s without the call.
    async check(ctx) {
      if (ctx.target) await prepare(ctx, ctx.target);
    },
    async handle(ctx) {
      const target = ctx.target;
      // The composition root refuses a pipeline without model-router, so this is a programming error.
      if (!target) throw Errors.internal(new Error('no model-router stage in the pipeline'));
      const request = await prepare(ctx, target);
      if (ctx.trace) ctx.trace.requested(await ctx.json(), api);
      budget.requestStarted();
      try {
        const sent = proxy.forward(ctx, target.upstream, request, settings, FIRST);
        const result = counted(ctx, target, await sent);
        if (typeof result === 'string') return;
        if (!(await retry(ctx, target, result))) await deliverFailure(ctx, result, phases);
      } finally {
        budget.requestEnded();
      }
    },
  };
}

function prepareNative(ctx: GatewayContext, target: RouteTarget): Promise<UpstreamRequest> {
  const plugin = target.upstream.plugin;
  // The composition root checks that every proxied model's plugin can prepare requests.
  if (!plugin.prepare) throw Errors.internal(new Error(`${target.upstream.name} cannot prepare requests`));
  return plugin.prepare(ctx, target.spec, target.upstreamModel);
}

/** The client's body translated for the model's family, whose reader the translator then wraps. */
async function prepareTranslated(
  ctx: ServedRequest,
  target: RouteTarget,
  translator: ApiTranslator,
): Promise<UpstreamRequest> {
  const body = await ctx.json();
  let inner: UpstreamRequest;
  try {
    const translated = translatedContext(ctx, translator.request(body, target.spec), translator.headers);
    inner = await prepareNative(translated, target);
  } catch (e) {
    throw e instanceof GatewayError && translator.clientMessage
      ? e.withMessage(translator.clientMessage(e.message))
      : e;
  }
  return { ...inner, reader: translator.reader(inner.reader, body, target.spec) };
}
