/**
 * What a gateway tells of itself: its metrics (a registry of its own: several gateways in one process,
 * in tests, must not share counts), the access log and, when an endpoint is named, tracing.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import { GatewayMetrics } from '../observability/metrics';
import { RequestObserver } from '../observability/request-observer';
import { endpointNamed } from '../observability/tracing/endpoint-named';
import type { GatewayTracing } from '../observability/tracing/gateway-tracing';
import type { Part, WithParts } from './part';

export interface Observability {
  readonly metrics: GatewayMetrics;
  /** The access log and the request metrics, as the listener reports each request to them. */
  readonly observer: RequestObserver;
  readonly tracing: GatewayTracing | undefined;
}

export async function observability(
  config: GatewayConfig,
  logger: Logger,
): Promise<WithParts<Observability>> {
  const tracing = await gatewayTracing(config);
  const metrics = new GatewayMetrics({ exemplars: tracing !== undefined });
  // Needed by the listeners and the poller, so stopped after them: the last requests' spans are sent.
  const parts: Part[] = tracing ? [{ name: 'tracing', stop: () => tracing.shutdown() }] : [];
  return { metrics, observer: new RequestObserver(logger, metrics), tracing, parts };
}

/**
 * Tracing when an endpoint is named and the settings keep it on (tracing-settings.ts); OpenTelemetry's
 * packages are loaded only then.
 */
async function gatewayTracing(config: GatewayConfig): Promise<GatewayTracing | undefined> {
  if (!endpointNamed(config.tracing)) return undefined;
  const { startGatewayTracing } = await import('../observability/tracing/gateway-tracing');
  return startGatewayTracing(config.tracing);
}
