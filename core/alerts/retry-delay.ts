/**
 * How long a failed delivery waits before its next attempt: `retry.first`, doubling with each failure up
 * to `retry.max`, drawn from [0.5, 1] × that so receivers that failed together are not retried together;
 * a receiver's `Retry-After` (seconds or an HTTP date) replaces it, still at most `retry.max`.
 */
import type { AlertsConfig } from '../../config/schema';

/** A uniform draw in [0, 1); injectable so tests can pin it. */
export type Draw = () => number;

/** The wait after failed attempt number `attempt` (1 for the first). */
export function retryDelay(
  retry: AlertsConfig['retry'],
  attempt: number,
  retryAfterMs: number | undefined,
  draw: Draw = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(retry.max, retryAfterMs);
  const backoff = Math.min(retry.max, retry.first * 2 ** Math.min(attempt - 1, 30));
  return Math.round(backoff * (0.5 + draw() / 2));
}

/** A `Retry-After` header in milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}
