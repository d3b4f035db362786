/**
 * What happens once a request is over: its metrics, and its access line when the access log is on.
 * The server calls `ended` once per request that reached the pipeline (after the stages' finish phase)
 * and `rejected` once per request answered before it, so each request is observed exactly once.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { GatewayContext } from '../contracts/plugin';
import type { Pricing } from '../billing/pricing';
import { clientView, logRejection, logRequest, type Rejection } from './access-log';
import type { GatewayMetrics } from './metrics';
import type { ServerSpan } from './tracing/server-span';

export class RequestObserver {
  /**
   * The access lines' own logger: the same output, without the redaction of credentials, whose wildcard
   * paths cost three times the rest of a line (15 µs of 20); an access line holds fixed fields, none a
   * credential. At `info` itself: whether to write is decided by the gateway's logger (reloads change it).
   */
  private readonly access: Logger;

  constructor(
    private readonly logger: Logger,
    private readonly metrics: GatewayMetrics,
  ) {
    this.access = logger.child({}, { redact: [], level: 'info' });
  }

  /**
   * A request that went through the pipeline is over; `access`: gateway.yaml's `logging.access`; `span`:
   * its trace's, when it is traced.
   */
  ended(ctx: GatewayContext, pricing: Pricing, access: boolean, span: ServerSpan | undefined): void {
    const totalMs = performance.now() - ctx.startedAt;
    const view = clientView(ctx);
    const { target, usage } = ctx;
    // A video submit is billed by the poller when its task succeeds (GatewayMetrics.billed), not here.
    const cost =
      target && usage && target.spec.api.kind !== 'task' ? pricing.callCost(target.spec.id, usage) : null;
    this.metrics.request(ctx, view.status, totalMs, cost);
    span?.end(ctx, view.status, cost);
    if (access && this.logger.isLevelEnabled('info')) logRequest(this.access, ctx, view, totalMs);
  }

  /** A request answered before the pipeline (Rejection). */
  rejected(rejection: Rejection, access: boolean): void {
    this.metrics.refused(rejection.status, rejection.code);
    if (access && this.logger.isLevelEnabled('info')) logRejection(this.access, rejection);
  }
}
