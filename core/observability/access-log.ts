/**
 * The access log: exactly one line per request, whatever its outcome, at `info` with the message
 * `request` (`logging.access: false` turns it off). It names the key by its id, never the key itself.
 *
 * `client` is the client's address: the peer's, or the one a trusted balancer named (server.trusted_proxies).
 * `status` is what the client saw; a client that left before any answer is logged as 499 (nginx's
 * convention, and the gateway's own `client_closed_request`), one that left during a stream keeps its
 * 200, both with `outcome: client_closed`. Durations are in ms: `duration_ms` the whole request,
 * `upstream_ms` the time spent on upstreams (every attempt, to the response's last byte), `gateway_ms`
 * the rest. `bytes_in` is the request body read, `bytes_out` the response as written (headers included).
 */
import type { LineOutput } from '../base/logger';
import type { Outcome } from '../contracts/context';
import type { ServedRequest } from '../request/served-request';
import { ACCESS_MESSAGE, accessLine, INFO } from './access-line';
import { CLIENT_LEFT, errorOutcome } from './outcome';

/** A path is cut to this length: a line stays a line whatever a client sends. */
const PATH_MAX = 256;

/** The request's path without its query string (which may carry anything), cut to PATH_MAX. */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  return path.length > PATH_MAX ? path.slice(0, PATH_MAX) : path;
}

/** Tenths of a millisecond are enough, and keep the line short. */
const ms = (value: number): number => Math.round(value * 10) / 10;

export interface ClientView {
  readonly status: number;
  readonly outcome: Outcome;
}

/** What the client saw of a request that went through the pipeline. */
export function clientView(ctx: ServedRequest): ClientView {
  const { res, outcome } = ctx;
  const status = ctx.status || (res.headersSent ? res.statusCode : 0);
  return { status: status === 0 && outcome === 'client_closed' ? CLIENT_LEFT : status, outcome };
}

/** The access line of a request that went through the pipeline. */
export function logRequest(out: LineOutput, ctx: ServedRequest, view: ClientView, totalMs: number): void {
  const { req, observed, target, usage } = ctx;
  out.write(
    accessLine({
      level: INFO,
      time: Date.now(),
      request_id: ctx.requestId,
      method: req.method,
      path: pathOf(req.url),
      client: ctx.clientAddress,
      status: view.status,
      outcome: view.outcome,
      code: observed.errorCode,
      model: target?.spec.id ?? ctx.called?.name,
      upstream: target?.upstream.name ?? ctx.called?.upstream,
      key_id: ctx.key?.id,
      duration_ms: ms(totalMs),
      gateway_ms: ms(totalMs - observed.upstreamMs),
      upstream_ms: ms(observed.upstreamMs),
      bytes_in: observed.bytesIn,
      bytes_out: req.socket.bytesWritten - observed.writtenBefore,
      prompt_tokens: usage?.promptTokens,
      completion_tokens: usage?.completionTokens,
      guardrail: ctx.guardrails?.map(({ name, action }) => `${name}:${action}`),
      trace_id: ctx.trace?.traceId,
      msg: ACCESS_MESSAGE,
    }),
  );
}

/** A request answered before the pipeline: no route, shutdown, or one Node could not even parse. */
export interface Rejection {
  readonly requestId: string;
  readonly method: string | undefined;
  readonly path: string;
  /** The client's address, as for requests that went through the pipeline. */
  readonly client: string;
  readonly status: number;
  readonly code: string;
  readonly bytesOut: number;
  readonly totalMs: number;
  /** When the request was traced. */
  readonly traceId?: string | undefined;
}

/** The access line of a rejected request (Rejection). */
export function logRejection(out: LineOutput, r: Rejection): void {
  out.write(
    accessLine({
      level: INFO,
      time: Date.now(),
      request_id: r.requestId,
      method: r.method,
      path: r.path,
      client: r.client,
      status: r.status,
      outcome: errorOutcome(r.status),
      code: r.code,
      duration_ms: ms(r.totalMs),
      gateway_ms: ms(r.totalMs),
      upstream_ms: 0,
      bytes_in: 0,
      bytes_out: r.bytesOut,
      trace_id: r.traceId,
      msg: ACCESS_MESSAGE,
    }),
  );
}
