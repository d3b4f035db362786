/** A service plugin's endpoint as the route table serves it: behind the pipeline, on the raw exchange. */
import type { ServiceEndpoint } from '../contracts/service';
import type { Endpoint } from '../request/served-request';

export function serviceEndpoint(service: ServiceEndpoint): Endpoint {
  const { id, method, path, rateLimited } = service;
  return {
    id,
    method,
    path,
    routedByModel: false,
    rateLimited,
    async handle(ctx) {
      const { res } = ctx;
      // The service's protocol library writes the head itself: what the gateway adds to every answer
      // is set first, and Node merges it into that head.
      res.setHeader('x-request-id', ctx.requestId);
      for (const [name, value] of Object.entries(ctx.replyHeaders ?? {})) res.setHeader(name, value);
      try {
        await service.handle({ ctx, req: ctx.req, res });
      } finally {
        ctx.status = res.headersSent ? res.statusCode : 0;
      }
    },
  };
}
