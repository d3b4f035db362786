/**
 * The request's trace as core uses it (core/observability/tracing implements it): its SERVER span, under
 * which stages and the proxy open theirs. On the context only when the request is traced, so tracing off
 * costs one check.
 */
import type { JsonObject } from '../base/json';
import type { ModelApi } from '../contracts/api';
import type { StageTrace } from '../contracts/context';
import type { RouteTarget } from '../contracts/route';
import type { Usage } from '../contracts/usage';

export interface RequestTrace extends StageTrace {
  /** The request's own span, for the metrics' exemplars. */
  readonly spanId: string;
  /** The request's own span as W3C `traceparent`, which a video task keeps for its later spans. */
  readonly traceparent: string;
  /** What the client's body asks of the call (its output ceiling; its prompt if content is recorded). */
  requested(body: JsonObject, api: ModelApi): void;
  /**
   * Opens the CLIENT span of one upstream attempt, to `target` at `url` (undefined where a plugin builds
   * the URL itself, as a task submit's), in the client's `api`.
   */
  attempt(target: RouteTarget, api: ModelApi, url: URL | undefined, why: AttemptCause): AttemptTrace;
}

/** Why an upstream attempt is made: the first, or after a failure (its reason) on the same route. */
export type AttemptCause =
  { readonly kind: 'first' } | { readonly kind: 'retry' | 'fallback' | 'resend'; readonly reason: string };

/** One upstream attempt's span. */
export interface AttemptTrace {
  /** The `traceparent` the upstream gets: it names this span. */
  readonly traceparent: string;
  /** A JSON answer, or one stream event's data, as the client gets it: read for finish reasons. */
  answered(data: string): void;
  /** The attempt is over: the upstream's status (0 when none came), and why it failed, if it did. */
  end(status: number, failure: string | undefined, usage: Usage | undefined): void;
}
