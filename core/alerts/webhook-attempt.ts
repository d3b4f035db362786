/**
 * One POST of an alert to a receiver, with Node's fetch (undici) and a timeout, and what its answer
 * means: delivered (2xx), try again (no answer, a timeout, 429, 5xx) or final (any other status,
 * redirects included: a webhook URL that moved is a configuration to fix, not a target to follow).
 */
import type { AlertWebhookConfig } from '../../config/schema';
import { retryAfterMs } from './retry-delay';
import { signature } from './webhook-signature';

export type AttemptOutcome = 'delivered' | 'retry' | 'final';

export interface AttemptResult {
  readonly outcome: AttemptOutcome;
  /** The metric's label: the status class, 429, or why there was no answer. */
  readonly result: string;
  readonly status?: number;
  /** What the receiver's Retry-After asked for, in ms. */
  readonly retryAfterMs?: number;
  /** Why there was no answer (a connection error's code, a timeout). */
  readonly error?: string;
}

/** Status ranges in order; the first that matches decides. */
const BY_STATUS: readonly { readonly from: number; readonly to: number; readonly outcome: AttemptOutcome }[] =
  [
    { from: 200, to: 299, outcome: 'delivered' },
    { from: 429, to: 429, outcome: 'retry' },
    { from: 500, to: 599, outcome: 'retry' },
  ];

const outcomeOf = (status: number): AttemptOutcome =>
  BY_STATUS.find((range) => status >= range.from && status <= range.to)?.outcome ?? 'final';

const resultOf = (status: number): string => (status === 429 ? '429' : `${Math.floor(status / 100)}xx`);

export interface Attempt {
  readonly hook: AlertWebhookConfig;
  readonly eventId: string;
  readonly body: string;
  readonly timeoutMs: number;
  /** Aborts the request when the gateway's grace period runs out. */
  readonly stop: AbortSignal;
  readonly now: number;
}

/**
 * The URL as logs show it: no user name or password, no query string (either may hold a credential).
 * A receiver that takes its secret in the path should be given one in `secret` instead.
 */
export function loggedUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/**
 * fetch refuses a URL with credentials in it: they go as Basic authentication instead, as curl sends
 * them, for receivers behind a proxy that asks for it.
 */
function target(url: string): { url: string; headers: Record<string, string> } {
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return { url, headers: {} };
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return {
    url: parsed.href,
    headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
  };
}

export async function postAlert({
  hook,
  eventId,
  body,
  timeoutMs,
  stop,
  now,
}: Attempt): Promise<AttemptResult> {
  const { url, headers } = target(hook.url);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'user-agent': 'model-gateway-alerts',
        'x-gateway-event-id': eventId,
        'x-gateway-signature': signature(hook.secret, body, Math.floor(now / 1000)),
      },
      body,
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]),
    });
  } catch (e) {
    return { outcome: 'retry', ...failure(e, stop, url) };
  }
  // Nothing of the answer is needed but its status: let the connection go back to the pool.
  await response.body?.cancel().catch(() => undefined);
  const { status } = response;
  return {
    outcome: outcomeOf(status),
    result: resultOf(status),
    status,
    retryAfterMs:
      status === 429 || status === 503 ? retryAfterMs(response.headers.get('retry-after'), now) : undefined,
  };
}

/** Why a request got no answer, from fetch's error (its cause holds the socket's code). */
function failure(e: unknown, stop: AbortSignal, url: string): { result: string; error: string } {
  if (stop.aborted) return { result: 'stopped', error: 'the gateway stopped' };
  const error = e as Error & { cause?: { code?: unknown; message?: unknown } };
  if (error.name === 'TimeoutError') return { result: 'timeout', error: 'timed out' };
  const { code, message } = error.cause ?? {};
  const detail = typeof code === 'string' ? code : typeof message === 'string' ? message : error.message;
  return { result: 'unreachable', error: detail.replaceAll(url, loggedUrl(url)) };
}
