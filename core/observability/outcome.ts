/**
 * How a call ended (Outcome), worked out in one place, so the usage record, the access line, the metrics
 * and the span say the same of it (docs/operations.md, Outcomes).
 */
import type { Outcome } from '../contracts/context';
import type { ServedRequest } from '../request/served-request';

/** The client left before any answer (nginx's 499), as the access log and metrics count it. */
export const CLIENT_LEFT = 499;

/**
 * What an answer of the gateway's own with `status` says of the call: an upstream that failed (502, 504),
 * the gateway's own failure (500), the client gone (499), or else its refusal (a 4xx, a 503).
 */
export function errorOutcome(status: number): Outcome {
  if (status === 502 || status === 504) return 'upstream_error';
  if (status === CLIENT_LEFT) return 'client_closed';
  return status === 500 ? 'gateway_error' : 'refused';
}

/**
 * How the request ended, settled once before its finish phases: a response nothing ended means the
 * client left first (the proxy marks that too, a gateway stage may not).
 */
export const settledOutcome = (ctx: ServedRequest): Outcome =>
  ctx.outcome === 'ok' && !ctx.res.writableEnded ? 'client_closed' : ctx.outcome;
