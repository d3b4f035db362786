/**
 * Every upstream failure is logged once, at warn, where it happens (core/routing/resilience.ts `failed`):
 * its upstream, request id, reason and cause (`ECONNREFUSED`, a timeout's phase, the upstream's status).
 * A failure the client then gets as the gateway's own error (a video submit's 502) reaches the server's
 * error boundary too, which asks `wasReported` so as not to log it a second time.
 */
import { GatewayError } from '../base/errors';

/** How an attempt failed: the gateway's error (no answer, or none in time), or the upstream's status. */
export type UpstreamFailure = { readonly error: unknown } | { readonly status: number };

const reported = new WeakSet<object>();

/** Whether `e` is an upstream failure already logged where it happened. */
export const wasReported = (e: unknown): boolean => typeof e === 'object' && e !== null && reported.has(e);

/** The failure's reason, a bounded label: the gateway's error code, or `http_<status>`. */
export function failureReason(failure: UpstreamFailure): string {
  if ('status' in failure) return `http_${failure.status}`;
  return failure.error instanceof GatewayError ? failure.error.code : 'upstream_unreachable';
}

/** The log fields that say why: the underlying cause's code and message, or the status. */
export function failureFields(failure: UpstreamFailure): Record<string, unknown> {
  if ('status' in failure) return { status: failure.status };
  const { error } = failure;
  if (typeof error === 'object' && error !== null) reported.add(error);
  // The root cause: a GatewayError wraps a Node error, or fetch's TypeError that wraps one.
  let cause = error;
  for (let depth = 0; depth < 4 && cause instanceof Error && cause.cause !== undefined; depth++) {
    cause = cause.cause;
  }
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return {
    ...(code ? { code } : {}),
    cause: cause instanceof Error ? cause.message : String(cause),
  };
}
