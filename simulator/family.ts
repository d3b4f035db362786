import type { IncomingHttpHeaders } from 'node:http';
import type { Exchange } from './exchange';
import type { SimError } from './sim-error';

/** Handles one route; throws SimError for error answers. */
export type RouteHandler = (ex: Exchange) => void | Promise<void>;

/**
 * One upstream family the simulator speaks (a vendor dialect). The server knows families only
 * through this interface, so adding a family is one file plus a line in `families/index.ts`.
 */
export interface Family {
  /** Key of `SimulatorOptions.keys`, e.g. `modela`. */
  readonly name: string;
  /** First path segment the family lives under, e.g. `/modela`. */
  readonly mount: string;
  /** Credential expected when `SimulatorOptions.keys` does not name one. */
  readonly defaultKey: string;
  /** Response header carrying the simulator's request id, named as the vendor names it. */
  readonly requestIdHeader: string;
  /**
   * Routes below the mount, keyed `METHOD /path`, e.g. `POST /v1/chat/completions`; a `{name}`
   * segment matches any one segment and reaches the handler as `ex.params.name`.
   */
  readonly routes: Readonly<Record<string, RouteHandler>>;
  /** Whether the request carries the expected credential in the vendor's auth style. */
  authorized(headers: IncomingHttpHeaders, key: string): boolean;
  /** The vendor's error body for `err`; `simId` is the simulator's id of the request. */
  errorBody(err: SimError, simId: string): unknown;
}

/** `Authorization: Bearer <key>`, the auth style of the OpenAI-like families. */
export function bearerAuth(headers: IncomingHttpHeaders, key: string): boolean {
  return headers.authorization === `Bearer ${key}`;
}

/**
 * `family` serving `routes` as well, e.g. a chat family that also generates images. A path the
 * family already serves is an error: silently replacing a route would hide a wiring mistake.
 */
export function withRoutes(family: Family, routes: Readonly<Record<string, RouteHandler>>): Family {
  const taken = Object.keys(routes).filter((route) => Object.hasOwn(family.routes, route));
  if (taken.length > 0) throw new Error(`${family.name} already serves ${taken.join(', ')}`);
  return { ...family, routes: { ...family.routes, ...routes } };
}
