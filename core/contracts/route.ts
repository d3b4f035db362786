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

/**
 * A route's session affinity (`routes.<model>.affinity`): which calls make one session, and how long a
 * session's placement on a target is kept after its last call.
 */
export interface RouteAffinity {
  /** `header`: the value of `header` names the session; `prefix`: the conversation's start does. */
  readonly by: 'header' | 'prefix';
  /** Lower-case, as Node gives request headers. */
  readonly header: string;
  readonly ttlMs: number;
}

/** The targets of one model, as the request path reads them. */
export interface RouteChoices {
  readonly spec: ModelSpec;
  readonly targets: readonly RouteTarget[];
  readonly totalWeight: number;
  /** In the order gateway.yaml lists them. */
  readonly fallbacks: readonly RouteTarget[];
  /** Absent for a route without affinity: its calls cost no session lookup. */
  readonly affinity?: RouteAffinity | undefined;
}
