/**
 * (method, path) → endpoint. Fixed paths are one Map lookup; paths with `:param` segments are matched
 * segment by segment. Built once at start-up from the endpoints the configured plugins serve.
 */
import { Errors } from '../base/errors';
import type { Endpoint } from '../contracts/plugin';
import { describeEndpoint } from '../routing/endpoint-name';

export interface RouteMatch {
  readonly endpoint: Endpoint;
  readonly params: Readonly<Record<string, string>>;
}

interface PatternRoute {
  readonly segments: readonly string[];
  readonly endpoint: Endpoint;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

export class RouteTable {
  private readonly fixed = new Map<string, Map<string, Endpoint>>();
  private readonly patterns: PatternRoute[] = [];

  add(endpoint: Endpoint): void {
    if (endpoint.path.includes('/:')) {
      this.patterns.push({ segments: endpoint.path.split('/'), endpoint });
      return;
    }
    const byMethod = this.fixed.get(endpoint.path) ?? new Map<string, Endpoint>();
    if (byMethod.has(endpoint.method)) throw new Error(`two endpoints for ${describeEndpoint(endpoint)}`);
    byMethod.set(endpoint.method, endpoint);
    this.fixed.set(endpoint.path, byMethod);
  }

  /** The endpoint for a request; throws 404 for an unknown path and 405 for a known path with another method. */
  match(method: string, path: string): RouteMatch {
    const byMethod = this.fixed.get(path);
    const endpoint = byMethod?.get(method);
    if (endpoint) return { endpoint, params: NO_PARAMS };
    const allowed = byMethod ? [...byMethod.keys()] : [];
    const segments = path.split('/');
    for (const route of this.patterns) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      if (route.endpoint.method === method) return { endpoint: route.endpoint, params };
      allowed.push(route.endpoint.method);
    }
    if (allowed.length) throw Errors.methodNotAllowed(method, path, allowed);
    throw Errors.notFound(method, path);
  }

  endpoints(): Endpoint[] {
    return [
      ...[...this.fixed.values()].flatMap((m) => [...m.values()]),
      ...this.patterns.map((p) => p.endpoint),
    ];
  }
}

function matchSegments(
  pattern: readonly string[],
  actual: readonly string[],
): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const value = actual[i]!;
    if (expected.startsWith(':')) {
      if (!value) return undefined;
      params[expected.slice(1)] = decodeSegment(value);
    } else if (expected !== value) return undefined;
  }
  return params;
}

/** A path parameter, percent-decoded; a malformed escape (`%zz`, a lone `%`) is the client's error. */
function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw Errors.invalidRequest(`the path segment '${value.slice(0, 64)}' has a malformed percent-escape`);
  }
}
