/**
 * Which models this gateway serves, on which API, through which upstreams. Built once from the upstream
 * plugins' model tables and the `routes:` of gateway.yaml: a model with a route goes to the route's
 * targets (weighted), then to its fallbacks when a target fails; a model without one goes to every
 * configured upstream whose plugin serves it. Ejected upstreams (UpstreamHealth) are passed over. A
 * route's `affinity` rides on its entry for the model-router stage, which keeps a session on the
 * target it was placed on; the choice here knows nothing of sessions.
 */
import type { LimitsConfig, RouteConfig } from '../../config/schema';
import { routeEntry, type RouteEntryConfig } from './route-entry';
import { ConfigError } from '../../config/errors';
import { Errors } from '../base/errors';
import { globMatch } from '../base/glob';
import { effectiveLimits } from '../contracts/model-limits';
import { describeEndpoint } from './endpoint-name';
import type { AttemptCause } from '../request/request-trace';
import type { Endpoint } from '../request/served-request';
import type { EndpointInfo, ModelSpec } from '../contracts/api';
import type { RouteAffinity, RouteChoices, RouteTarget } from '../contracts/route';
import type { Upstream } from '../upstream/upstream';
import { token } from '../base/token';

/** What routing needs to know of the upstreams' health: when an ejected upstream returns (0: it is in service). */
export interface EjectionView {
  /** How many upstreams are ejected now: 0 lets a pick skip every check. */
  readonly ejectedCount: number;
  ejectedUntil(upstream: string, now: number): number;
}

type Entry = RouteChoices & { targets: RouteTarget[]; fallbacks: RouteTarget[]; totalWeight: number };

export class Catalogue {
  private readonly entries = new Map<string, Entry>();
  private endpoints: readonly Endpoint[] = [];

  constructor(
    upstreams: readonly Upstream[],
    routes: Readonly<Record<string, RouteConfig>>,
    limits: LimitsConfig = {},
  ) {
    const byName = new Map(upstreams.map((u) => [u.name, u]));
    const specs = new Map<string, ModelSpec>();
    for (const u of upstreams) {
      for (const spec of u.plugin.models) {
        specs.set(spec.id, { ...spec, limits: effectiveLimits(spec.id, spec.limits ?? {}, limits) });
      }
    }
    for (const pattern of Object.keys(limits)) {
      if (![...specs.keys()].some((id) => globMatch(pattern, id))) {
        throw new ConfigError(
          `limits.${pattern}`,
          'no configured upstream plugin serves a model of this name',
        );
      }
    }
    for (const [pattern, route] of Object.entries(routes)) checkRoute(pattern, route, specs, byName);
    for (const spec of specs.values()) {
      const entry = this.entryFor(spec, routes, byName, specs, upstreams);
      if (entry.targets.length > 0) this.entries.set(spec.id, entry);
    }
  }

  /** The endpoints routed by model, so a refusal can name the endpoints that do serve a model. */
  bind(endpoints: readonly Endpoint[]): void {
    this.endpoints = endpoints.filter((e) => e.routedByModel);
  }

  /**
   * The target for `model` on `endpoint`, weighted at random among the route's targets that are not
   * ejected, else its first fallback that is not. Throws 404 model_not_found, naming the endpoints that
   * do serve the model, and 503 upstream_unavailable when every target and fallback is ejected.
   */
  resolve(endpoint: EndpointInfo, model: string, health?: EjectionView): RouteTarget {
    const entry = this.entries.get(model);
    if (!entry || !endpoint.serves?.(entry.spec)) {
      const servedOn = entry
        ? this.endpoints.filter((e) => e.serves?.(entry.spec)).map(describeEndpoint)
        : [];
      throw Errors.modelNotFound(model, describeEndpoint(endpoint), servedOn);
    }
    if (!health || health.ejectedCount === 0) return pickWeighted(entry);
    return pickHealthy(entry, health);
  }

  /** The model-routed endpoint at `path` (an API's `POST` path), if one is served. */
  endpointAt(path: string): EndpointInfo | undefined {
    return this.endpoints.find((e) => e.path === path);
  }

  /** The target of `model` on the upstream named `upstream` (a target or a fallback), if it serves there. */
  targetOn(model: string, upstream: string): RouteTarget | undefined {
    const entry = this.entries.get(model);
    const onIt = (t: RouteTarget): boolean => t.upstream.name === upstream;
    return entry && (entry.targets.find(onIt) ?? entry.fallbacks.find(onIt));
  }

  /** The models served, in a stable order. */
  models(): ModelSpec[] {
    return [...this.entries.values()].map((e) => e.spec);
  }

  private entryFor(
    spec: ModelSpec,
    routes: Readonly<Record<string, RouteConfig>>,
    byName: ReadonlyMap<string, Upstream>,
    specs: ReadonlyMap<string, ModelSpec>,
    upstreams: readonly Upstream[],
  ): Entry {
    const route = routes[spec.id] ?? Object.entries(routes).find(([p]) => globMatch(p, spec.id))?.[1];
    const affinity = route && routeAffinity(spec, route);
    const entry: Entry = { spec, targets: [], totalWeight: 0, fallbacks: [], affinity };
    if (!route) {
      for (const upstream of upstreams) {
        if (!upstream.plugin.models.some((m) => m.id === spec.id)) continue;
        entry.targets.push({ upstream, spec, upstreamModel: spec.id, weight: 1, route: entry });
      }
    } else {
      const resolve = (config: RouteEntryConfig, path: string, weight: number): RouteTarget => ({
        ...routeEntry(spec, config, `routes.${spec.id}.${path}`, byName, specs),
        weight,
        route: entry,
      });
      route.targets.forEach((t, i) => entry.targets.push(resolve(t, `targets[${i}]`, t.weight)));
      route.fallbacks.forEach((f, i) => entry.fallbacks.push(resolve(f, `fallbacks[${i}]`, 0)));
    }
    entry.totalWeight = entry.targets.reduce((n, t) => n + t.weight, 0);
    return entry;
  }
}

/** A route's names against what is configured: its models, its upstreams, and what its affinity keys by. */
function checkRoute(
  pattern: string,
  route: RouteConfig,
  specs: ReadonlyMap<string, ModelSpec>,
  byName: ReadonlyMap<string, Upstream>,
): void {
  const matched = [...specs.values()].filter((spec) => globMatch(pattern, spec.id));
  if (matched.length === 0) {
    throw new ConfigError(`routes.${pattern}`, 'no configured upstream plugin serves a model of this name');
  }
  const named = (list: string, u: string, i: number): void => {
    if (!byName.has(u))
      throw new ConfigError(`routes.${pattern}.${list}[${i}].upstream`, `no upstream named "${u}"`);
  };
  route.targets.forEach((t, i) => named('targets', t.upstream, i));
  route.fallbacks.forEach((f, i) => named('fallbacks', f.upstream, i));
  if (route.affinity?.by === 'prefix' && !matched.some((spec) => spec.api.conversationStart !== undefined)) {
    throw new ConfigError(
      `routes.${pattern}.affinity.by`,
      'prefix keys a session by its conversation, and no model of this route is served on an API that has one',
    );
  }
}

/**
 * The route's affinity as the request path reads it; undefined (no lookup at all) without one, or on a
 * route of one target, where every call goes to it anyway.
 */
function routeAffinity(spec: ModelSpec, route: RouteConfig): RouteAffinity | undefined {
  const { affinity } = route;
  if (!affinity) return undefined;
  // A glob may take in models of an API without conversations (embeddings): they go without.
  if (affinity.by === 'prefix' && spec.api.conversationStart === undefined) return undefined;
  if (route.targets.length < 2) return undefined;
  return { by: affinity.by, header: affinity.header, ttlMs: affinity.ttl };
}

function pickWeighted(entry: Entry): RouteTarget {
  if (entry.targets.length === 1) return entry.targets[0]!;
  let roll = Math.random() * entry.totalWeight;
  for (const target of entry.targets) {
    roll -= target.weight;
    if (roll < 0) return target;
  }
  return entry.targets[entry.targets.length - 1]!;
}

/**
 * The weighted pick over the targets in service; with none, the first fallback in service. Taken only
 * while some upstream is ejected, so the common path stays pickWeighted's.
 */
function pickHealthy(entry: RouteChoices, health: EjectionView): RouteTarget {
  const now = Date.now();
  let total = 0;
  for (const t of entry.targets) if (health.ejectedUntil(t.upstream.name, now) === 0) total += t.weight;
  if (total > 0) {
    let roll = Math.random() * total;
    let last: RouteTarget | undefined;
    for (const t of entry.targets) {
      if (health.ejectedUntil(t.upstream.name, now) !== 0) continue;
      last = t;
      roll -= t.weight;
      if (roll < 0) return t;
    }
    return last!;
  }
  const fallback = entry.fallbacks.find((f) => health.ejectedUntil(f.upstream.name, now) === 0);
  if (fallback) return fallback;
  throw Errors.upstreamUnavailable(entry.spec.id, secondsUntilFirstReturn(entry, health, now));
}

/**
 * The target to try after `failed` failed: the first fallback in service that is not on the failed
 * upstream; for a route without fallbacks, another target in service. Undefined when none is left.
 */
export function nextTarget(failed: RouteTarget, health: EjectionView): RouteTarget | undefined {
  const { route } = failed;
  const now = Date.now();
  const usable = (t: RouteTarget): boolean =>
    t.upstream !== failed.upstream && health.ejectedUntil(t.upstream.name, now) === 0;
  return route.fallbacks.length > 0 ? route.fallbacks.find(usable) : route.targets.find(usable);
}

/** Why `next` (nextTarget's choice after `failed`) is tried: a fallback of the route, or its next target. */
export const retryCause = (failed: RouteTarget, next: RouteTarget, reason: string): AttemptCause => ({
  kind: failed.route.fallbacks.includes(next) ? 'fallback' : 'retry',
  reason,
});

/** Whole seconds (at least 1) until the first of the route's upstreams returns to service. */
function secondsUntilFirstReturn(entry: RouteChoices, health: EjectionView, now: number): number {
  let first = Infinity;
  for (const t of [...entry.targets, ...entry.fallbacks]) {
    first = Math.min(first, health.ejectedUntil(t.upstream.name, now));
  }
  return Math.max(1, Math.ceil((first - now) / 1000));
}

export const CatalogueToken = token<Catalogue>('Catalogue');
