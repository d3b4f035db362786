import type { IncomingHttpHeaders } from 'node:http';
import type { Family, RouteHandler } from './exchange';

// The family's types live with Exchange (./exchange), which holds a family: neither file imports the other back.
export type { Family, RouteHandler } from './exchange';

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
