/**
 * `GET /healthz` (the process is alive: always 200 while it answers) and `GET /readyz` (send traffic
 * here: 200, or 503 while starting, draining or failing a check), on the main port for load balancers
 * and orchestrators. They are answered before the pipeline (no key, no rate limit, no usage record)
 * and also while draining, when every other request gets 503 shutting_down, so a keep-alive connection
 * still open then learns that the instance is going. The body is only the state; operators find each
 * check's reason on the admin port (`GET /admin/health`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Errors, sendError } from '../base/errors';
import type { Readiness } from '../health/readiness';

const HEALTHZ = '/healthz';
const READYZ = '/readyz';

/** The request's path without its query. */
const pathOf = (url: string): string => {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
};

export class HealthEndpoints {
  constructor(private readonly readiness: Readiness) {}

  /** True for a request to one of these paths: `answer` then owns it. */
  matches(url: string | undefined): boolean {
    const path = pathOf(url ?? '/');
    return path === HEALTHZ || path === READYZ;
  }

  answer(req: IncomingMessage, res: ServerResponse, requestId: string): void {
    const method = req.method ?? 'GET';
    const path = pathOf(req.url ?? '/');
    if (method !== 'GET' && method !== 'HEAD') {
      sendError(res, Errors.methodNotAllowed(method, path, ['GET', 'HEAD']), requestId);
      return;
    }
    if (path === HEALTHZ) {
      reply(res, 200, 'ok', requestId);
      return;
    }
    this.readiness.ready().then(
      (ready) => reply(res, ready ? 200 : 503, ready ? 'ok' : 'unavailable', requestId),
      () => reply(res, 503, 'unavailable', requestId), // Readiness turns a check's failure into a state
    );
  }
}

function reply(res: ServerResponse, status: number, state: 'ok' | 'unavailable', requestId: string): void {
  if (res.headersSent || res.destroyed) return;
  const body = `{"status":"${state}"}`;
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    // A cached "ok" would keep traffic coming to an instance that has stopped being ready.
    'cache-control': 'no-store',
    'x-request-id': requestId,
  });
  res.end(body);
}
