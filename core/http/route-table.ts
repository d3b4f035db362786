/**
 * (method, path) → endpoint, on lib/router. Built once per routing snapshot from the endpoints the
 * configured plugins serve; matched on every request.
 */
import { Router, type Found } from '../../lib/router';
import { Errors } from '../base/errors';
import type { Endpoint } from '../request/served-request';

export class RouteTable {
  private readonly router = new Router<Endpoint>();
  private readonly all: Endpoint[] = [];

  add(endpoint: Endpoint): void {
    this.router.add(endpoint.method, endpoint.path, endpoint);
    this.all.push(endpoint);
  }

  /**
   * The endpoint (`handler`) for a request, its parameters percent-decoded. Throws 404 for an unknown
   * path, 405 for a known path with another method, and 400 for a malformed escape in a parameter.
   */
  match(method: string, path: string): Found<Endpoint> {
    const found = this.router.find(method, path);
    if ('handler' in found) return path.includes('%') ? decoded(found) : found;
    if (found.allowed.length === 0) throw Errors.notFound(method, path);
    // A malformed escape in the path is the client's error whatever the method: 400 before 405.
    for (const other of found.allowed) this.match(other, path);
    throw Errors.methodNotAllowed(method, path, found.allowed);
  }

  endpoints(): Endpoint[] {
    return [...this.all];
  }
}

/** The answer with its parameters percent-decoded (without a `%` in the path there is nothing to decode). */
function decoded(found: Found<Endpoint>): Found<Endpoint> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(found.params)) params[name] = decodeSegment(value);
  return { handler: found.handler, params };
}

/** A path parameter, percent-decoded; a malformed escape (`%zz`, a lone `%`) is the client's error. */
function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw Errors.invalidRequest(`the path segment '${value.slice(0, 64)}' has a malformed percent-escape`);
  }
}
