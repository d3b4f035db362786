/**
 * Who is calling the admin API: each actor source recognises its own kind of credential and gives the
 * Actor, or undefined to let the next source try. The bearer token sources are here; a console session
 * (a signed cookie) is another source, added to the list by whoever builds the admin server.
 */
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { Actor } from './actor';
import type { AdminTokenService } from './admin-token-service';

export type ActorSource = (req: IncomingMessage) => Promise<Actor | undefined>;

/** The bootstrap token's id in listings and the audit log: it has no stored record. */
export const BOOTSTRAP_TOKEN_ID = 'bootstrap';

export const BOOTSTRAP_ACTOR: Actor = {
  kind: 'token',
  id: BOOTSTRAP_TOKEN_ID,
  name: 'bootstrap token',
  role: 'admin',
};

/** What follows `Bearer ` in the Authorization header (the whole header when it lacks the scheme). */
export function bearerOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  return header === undefined ? undefined : header.replace(/^Bearer\s+/i, '');
}

/** The bootstrap token (GATEWAY_ADMIN_TOKEN, else data/admin-token): always `admin`. */
export function bootstrapTokenSource(token: string): ActorSource {
  const expected = Buffer.from(token);
  return (req) => {
    const presented = Buffer.from(bearerOf(req) ?? '');
    const same = presented.length === expected.length && timingSafeEqual(presented, expected);
    return Promise.resolve(same ? BOOTSTRAP_ACTOR : undefined);
  };
}

/** Tokens made with `POST /admin/tokens`, each with its role (and team). */
export function adminTokenSource(tokens: AdminTokenService): ActorSource {
  return async (req) => {
    const presented = bearerOf(req);
    const record = presented === undefined ? undefined : await tokens.lookup(presented);
    if (!record) return undefined;
    return {
      kind: 'token',
      id: record.id,
      name: record.description,
      role: record.role,
      ...(record.team_id !== undefined ? { team_id: record.team_id } : {}),
    };
  };
}

/** The first source's actor, or undefined when none recognises the caller. */
export async function resolveActor(
  sources: readonly ActorSource[],
  req: IncomingMessage,
): Promise<Actor | undefined> {
  for (const source of sources) {
    const actor = await source(req);
    if (actor) return actor;
  }
  return undefined;
}
