/** A service plugin's endpoint as the route table serves it: behind the pipeline, on the raw exchange. */
import type { ServiceCall, ServiceEndpoint } from '../contracts/service';
import type { Endpoint, ServedRequest } from '../request/served-request';

/** The call's outcome is the request's (a tool's failure inside a 200 answer is still a failure). */
function calledBy(ctx: ServedRequest, call: ServiceCall): void {
  ctx.called = call;
  ctx.outcome = call.outcome;
  ctx.observed.upstreamMs += call.upstreamMs;
  ctx.trace?.attribute('gateway.upstream', call.upstream);
}

export function serviceEndpoint(service: ServiceEndpoint): Endpoint {
  const { id, method, path, rateLimited, bodyLimit } = service;
  return {
    id,
    method,
    path,
    routedByModel: false,
    rateLimited,
    bodyLimit,
    async handle(ctx) {
      const { res } = ctx;
      // The service's protocol library writes the head itself: what the gateway adds to every answer
      // is set first, and Node merges it into that head.
      res.setHeader('x-request-id', ctx.requestId);
      for (const [name, value] of Object.entries(ctx.replyHeaders ?? {})) res.setHeader(name, value);
      try {
        await service.handle({ ctx, req: ctx.req, res, called: (call) => calledBy(ctx, call) });
      } finally {
        ctx.status = res.headersSent ? res.statusCode : 0;
      }
    },
  };
}
