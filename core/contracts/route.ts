/**
 * Where a model-routed request goes: the targets the catalogue hands the model-router stage, and the
 * configured upstream each names.
 */
import type { Agent } from 'node:http';
import type { ModelSpec } from './api';
import type { UpstreamPlugin } from './upstream';

export interface UpstreamTimeouts {
  readonly connectMs: number;
  readonly responseMs: number;
}

/** A configured upstream as a route target holds it (upstream/upstream.ts is the implementation). */
export interface ConfiguredUpstream {
  readonly name: string;
  readonly plugin: UpstreamPlugin;
  readonly timeouts: UpstreamTimeouts;
  /** Its keep-alive sockets. */
  readonly agent: Agent;
  close(): void;
}

export interface RouteTarget {
  readonly upstream: ConfiguredUpstream;
  /** The model that serves: the route's, or (a fallback's) another model of the same API, metered as itself. */
  readonly spec: ModelSpec;
  /** The id the upstream knows the model by. */
  readonly upstreamModel: string;
  readonly weight: number;
  /** The route this target belongs to, so a failed attempt finds its next target without a lookup. */
  readonly route: RouteChoices;
}

/** The targets of one model, as the request path reads them. */
export interface RouteChoices {
  readonly spec: ModelSpec;
  readonly targets: readonly RouteTarget[];
  readonly totalWeight: number;
  /** In the order gateway.yaml lists them. */
  readonly fallbacks: readonly RouteTarget[];
}
