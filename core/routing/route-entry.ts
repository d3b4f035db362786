/**
 * One entry of a route, a target or a fallback, resolved against the upstreams' model tables. An entry
 * on an upstream whose plugin serves the route's model is that model (under `model` as its upstream id,
 * an alias); otherwise `model` must name another model of the same API served there, and requests it
 * serves are metered and priced as that model. Anything else is a configuration error at start-up.
 */
import { ConfigError } from '../../config/errors';
import type { ModelSpec } from '../contracts/api';
import type { Upstream } from '../upstream/upstream';

/** A target or fallback as gateway.yaml gives it. */
export interface RouteEntryConfig {
  readonly upstream: string;
  readonly model?: string | undefined;
}

/** What an entry resolves to: where it goes and as which model. */
export interface ResolvedEntry {
  readonly upstream: Upstream;
  readonly spec: ModelSpec;
  readonly upstreamModel: string;
}

/**
 * @param routeModel the model the route serves (the id clients send)
 * @param path the entry's place in gateway.yaml, e.g. `routes.modela-5.5.fallbacks[0]`, for errors
 * @param specs every served model by id, with its effective limits
 */
export function routeEntry(
  routeModel: ModelSpec,
  entry: RouteEntryConfig,
  path: string,
  byName: ReadonlyMap<string, Upstream>,
  specs: ReadonlyMap<string, ModelSpec>,
): ResolvedEntry {
  const upstream = byName.get(entry.upstream);
  if (!upstream) throw new ConfigError(`${path}.upstream`, `no upstream named "${entry.upstream}"`);
  const served = upstream.plugin.models;
  if (served.some((m) => m.id === routeModel.id)) {
    return { upstream, spec: routeModel, upstreamModel: entry.model ?? routeModel.id };
  }
  const other = entry.model === undefined ? undefined : served.find((m) => m.id === entry.model);
  if (other && other.api.id === routeModel.api.id) {
    return { upstream, spec: specs.get(other.id) ?? other, upstreamModel: other.id };
  }
  if (other) {
    throw new ConfigError(
      `${path}.model`,
      `model ${other.id} is served on ${other.api.id}, not on ${routeModel.api.id} as ${routeModel.id} is`,
    );
  }
  throw new ConfigError(
    `${path}.upstream`,
    entry.model === undefined
      ? `upstream "${entry.upstream}" does not serve model ${routeModel.id}`
      : `upstream "${entry.upstream}" serves neither model ${routeModel.id} nor ${entry.model}`,
  );
}
