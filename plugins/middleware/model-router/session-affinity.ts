/**
 * Session affinity: the calls of one session keep reaching the target the session was placed on while
 * it is in service, so a vendor's prompt cache (kept per deployment) can hit. A session is the value of
 * the route's header (`by: header`), or the conversation's start (`by: prefix`: system prompt and first
 * user turn, as the client's API reads them). A call of no session, or one the route's normal choice
 * sends to a fallback (every target out), takes the normal choice and places nothing. A session whose
 * target is ejected, or gone from the configuration after a reload, is placed anew by the normal
 * weighted choice, and stays there.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { JsonObject } from '../../../core/kit/json';
import type { ModelApi } from '../../../core/kit/upstream';
import type { RouteAffinity, RouteChoices, RouteTarget } from '../../../core/kit/stage';
import type { Placements } from './placements';

/** What affinity reads of a request. */
export interface SessionRequest {
  readonly headers: IncomingHttpHeaders;
  /** The client's API, whose body is read for `by: prefix`. */
  readonly api: ModelApi | undefined;
  readonly body: JsonObject;
}

/** Whether an upstream is in service now (Resilience's health). */
export interface InService {
  readonly ejectedCount: number;
  ejectedUntil(upstream: string, now: number): number;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The session of a call, hashed; undefined for a call of none. */
export function sessionOf(affinity: RouteAffinity, request: SessionRequest): string | undefined {
  if (affinity.by === 'header') {
    const value = request.headers[affinity.header];
    const text = Array.isArray(value) ? value.join(', ') : value;
    return text ? sha256(text) : undefined;
  }
  const start = request.api?.conversationStart?.(request.body);
  return start === undefined ? undefined : sha256(JSON.stringify(start));
}

/** A target as a placement names it: its upstream and the model id sent there. */
const names = new WeakMap<RouteTarget, string>();
export function placementOf(target: RouteTarget): string {
  let name = names.get(target);
  if (name === undefined) {
    name = JSON.stringify([target.upstream.name, target.upstreamModel]);
    names.set(target, name);
  }
  return name;
}

export class SessionAffinity {
  constructor(private readonly placements: Placements) {}

  /**
   * The target of a call on a route with affinity: the session's placement when it is in service, else
   * `chosen` (the route's normal choice), where the session is placed from now on.
   */
  place(
    affinity: RouteAffinity,
    request: SessionRequest,
    chosen: RouteTarget,
    health: InService,
  ): RouteTarget | Promise<RouteTarget> {
    const { route } = chosen;
    if (!route.targets.includes(chosen)) return chosen;
    const session = sessionOf(affinity, request);
    if (session === undefined) return chosen;
    const key = `affinity:${route.spec.id}:${session}`;
    const placed = this.placements.place(key, placementOf(chosen), usable(route, health), affinity.ttlMs);
    if (typeof placed === 'string') return targetNamed(route, placed, chosen);
    return placed.then((name) => targetNamed(route, name, chosen));
  }
}

/** The placements of the route's targets in service now. */
function usable(route: RouteChoices, health: InService): string[] {
  if (health.ejectedCount === 0) return route.targets.map(placementOf);
  const now = Date.now();
  return route.targets.filter((t) => health.ejectedUntil(t.upstream.name, now) === 0).map(placementOf);
}

const targetNamed = (route: RouteChoices, name: string, chosen: RouteTarget): RouteTarget =>
  route.targets.find((t) => placementOf(t) === name) ?? chosen;
