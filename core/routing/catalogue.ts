/**
 * Which models this gateway serves, on which API, through which upstreams. Built once from the upstream
 * plugins' model tables and the `routes:` of gateway.yaml: a model with a route goes to the route's
 * targets (weighted); a model without one goes to every configured upstream whose plugin serves it.
 */
import type { LimitsConfig, RouteConfig } from '../../config/schema';
import { ConfigError } from '../../config/errors';
import { Errors } from '../errors';
import { globMatch } from './glob';
import { effectiveLimits } from './model-limits';
import { describeEndpoint, type Endpoint } from '../http/endpoint';
import type { ModelSpec } from '../plugin';
import type { Upstream } from '../upstream/upstream';

export interface RouteTarget {
  readonly upstream: Upstream;
  readonly spec: ModelSpec;
  /** The id the upstream knows the model by. */
  readonly upstreamModel: string;
  readonly weight: number;
}

interface Entry {
  readonly spec: ModelSpec;
  readonly targets: readonly RouteTarget[];
  readonly totalWeight: number;
}

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
    for (const [pattern, route] of Object.entries(routes)) {
      if (![...specs.keys()].some((id) => globMatch(pattern, id))) {
        throw new ConfigError(
          `routes.${pattern}`,
          'no configured upstream plugin serves a model of this name',
        );
      }
      route.targets.forEach((t, i) => {
        if (!byName.has(t.upstream)) {
          throw new ConfigError(
            `routes.${pattern}.targets[${i}].upstream`,
            `no upstream named "${t.upstream}"`,
          );
        }
      });
    }
    for (const spec of specs.values()) {
      const targets = this.targetsFor(spec, routes, byName, upstreams);
      if (targets.length === 0) continue;
      this.entries.set(spec.id, { spec, targets, totalWeight: targets.reduce((n, t) => n + t.weight, 0) });
    }
  }

  /** The endpoints routed by model, so a refusal can name the endpoints that do serve a model. */
  bind(endpoints: readonly Endpoint[]): void {
    this.endpoints = endpoints.filter((e) => e.routedByModel);
  }

  /**
   * The target for `model` on `endpoint`, weighted at random among the route's targets.
   * Throws 404 model_not_found, naming the endpoints that do serve the model.
   */
  resolve(endpoint: Endpoint, model: string): RouteTarget {
    const entry = this.entries.get(model);
    if (!entry || !endpoint.serves?.(entry.spec)) {
      const servedOn = entry
        ? this.endpoints.filter((e) => e.serves?.(entry.spec)).map(describeEndpoint)
        : [];
      throw Errors.modelNotFound(model, describeEndpoint(endpoint), servedOn);
    }
    return pickWeighted(entry);
  }

  /** The models served, in a stable order. */
  /** The target of `model` on the upstream named `upstream`, if the model is served there. */
  targetOn(model: string, upstream: string): RouteTarget | undefined {
    return this.entries.get(model)?.targets.find((t) => t.upstream.name === upstream);
  }

  models(): ModelSpec[] {
    return [...this.entries.values()].map((e) => e.spec);
  }

  private targetsFor(
    spec: ModelSpec,
    routes: Readonly<Record<string, RouteConfig>>,
    byName: ReadonlyMap<string, Upstream>,
    upstreams: readonly Upstream[],
  ): RouteTarget[] {
    const route = routes[spec.id] ?? Object.entries(routes).find(([p]) => globMatch(p, spec.id))?.[1];
    if (!route) {
      return upstreams
        .filter((u) => u.plugin.models.some((m) => m.id === spec.id))
        .map((upstream) => ({ upstream, spec, upstreamModel: spec.id, weight: 1 }));
    }
    return route.targets.map((t, i) => {
      const upstream = byName.get(t.upstream)!;
      if (!upstream.plugin.models.some((m) => m.id === spec.id)) {
        throw new ConfigError(
          `routes.${spec.id}.targets[${i}].upstream`,
          `upstream "${t.upstream}" does not serve model ${spec.id}`,
        );
      }
      return { upstream, spec, upstreamModel: t.model ?? spec.id, weight: t.weight };
    });
  }
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
