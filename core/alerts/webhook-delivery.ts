/**
 * An alert's delivery to one receiver: attempts until one is delivered or final, or `retry.attempts` are
 * spent, each logged (event id, the URL without credentials, status or error, attempt, next retry) and
 * counted. Runs off the request path, in the alerts' queue (spend-alerts.ts).
 */
import type { Logger } from 'pino';
import type { AlertsConfig, AlertWebhookConfig } from '../../config/schema';
import type { GatewayMetrics } from '../observability/metrics';
import type { AlertEvent } from './alert-event';
import type { AlertShutdown } from './alert-shutdown';
import { retryDelay } from './retry-delay';
import { loggedUrl, postAlert, type AttemptResult } from './webhook-attempt';

export interface DeliveryDeps {
  readonly config: AlertsConfig;
  readonly logger: Logger;
  readonly metrics: GatewayMetrics;
  readonly shutdown: AlertShutdown;
  readonly clock: () => number;
}

/** How a delivery that got a final answer is logged and counted. */
const ENDED = {
  delivered: { level: 'info', message: 'alert delivered', outcome: 'delivered' },
  final: { level: 'error', message: 'alert refused by its receiver; not retried', outcome: 'rejected' },
} as const;

export async function deliver(
  deps: DeliveryDeps,
  hook: AlertWebhookConfig,
  event: AlertEvent,
  body: string,
): Promise<void> {
  const { config, logger, metrics, shutdown, clock } = deps;
  const at = { event_id: event.id, url: loggedUrl(hook.url) };
  for (let attempt = 1; ; attempt++) {
    const result = await postAlert({
      hook,
      eventId: event.id,
      body,
      timeoutMs: config.timeout,
      stop: shutdown.signal,
      now: clock(),
    });
    metrics.alertAttempted(result.result);
    const line = { ...at, attempt, ...answer(result) };
    if (result.outcome !== 'retry') {
      const end = ENDED[result.outcome];
      logger[end.level](line, end.message);
      metrics.alertDelivered(end.outcome);
      return;
    }
    const waitMs = retryDelay(config.retry, attempt, result.retryAfterMs);
    const givenUp = attempt >= config.retry.attempts ? 'attempts spent' : stopping(shutdown, waitMs);
    if (givenUp) {
      logger.error({ ...line, reason: givenUp }, 'alert not delivered');
      metrics.alertDelivered('failed');
      return;
    }
    logger.warn(
      { ...line, next_retry_ms: waitMs, next_retry_at: new Date(clock() + waitMs).toISOString() },
      'alert delivery failed; retrying',
    );
    if (!(await shutdown.wait(waitMs))) {
      logger.error({ ...at, attempt, reason: 'the gateway stopped' }, 'alert not delivered');
      metrics.alertDelivered('failed');
      return;
    }
  }
}

/** Why no further attempt is made while the gateway stops, if none is. */
const stopping = (shutdown: AlertShutdown, waitMs: number): string | undefined =>
  shutdown.signal.aborted || !shutdown.allows(waitMs) ? 'the gateway is stopping' : undefined;

const answer = (result: AttemptResult): { status?: number; err?: string } =>
  result.status !== undefined ? { status: result.status } : { err: result.error };
