/**
 * What happens once a request is over: its metrics, and its access line when the access log is on.
 * The server calls `ended` once per request that reached the pipeline (after the stages' finish phase)
 * and `rejected` once per request answered before it, so each request is observed exactly once.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { lineOutput, type LineOutput } from '../base/logger';
import type { ServedRequest } from '../request/served-request';
import type { Pricing } from '../billing/pricing';
import { clientView, logRejection, logRequest, type Rejection } from './access-log';
import type { GatewayMetrics } from './metrics';
import type { ServerSpan } from './tracing/server-span';

export class RequestObserver {
  /** Access lines go straight to the logger's destination, serialised by their own compiled function. */
  private readonly access: LineOutput;

  constructor(
    private readonly logger: Logger,
    private readonly metrics: GatewayMetrics,
  ) {
    this.access = lineOutput(logger);
  }

  /**
   * A request that went through the pipeline is over; `access`: gateway.yaml's `logging.access`; `span`:
   * its trace's, when it is traced.
   */
  ended(ctx: ServedRequest, pricing: Pricing, access: boolean, span: ServerSpan | undefined): void {
    const totalMs = performance.now() - ctx.startedAt;
    const view = clientView(ctx);
    const { target, usage } = ctx;
    // A video submit is billed by the poller when its task succeeds (GatewayMetrics.billed), not here; a
    // replayed answer (a cache's hit) costs nothing.
    const cost =
      target && usage && target.spec.api.kind !== 'task'
        ? ctx.replayed
          ? 0
          : pricing.callCost(target.spec.id, usage)
        : null;
    this.metrics.request(ctx, view, totalMs, cost);
    span?.end(ctx, view.status, cost);
    if (access && this.logger.isLevelEnabled('info')) logRequest(this.access, ctx, view, totalMs);
  }

  /** A request answered before the pipeline (Rejection). */
  rejected(rejection: Rejection, access: boolean): void {
    this.metrics.refused(rejection.status, rejection.code);
    if (access && this.logger.isLevelEnabled('info')) logRejection(this.access, rejection);
  }
}
