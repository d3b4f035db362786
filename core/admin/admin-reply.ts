import type { IncomingMessage } from 'node:http';
import type { Params } from '../../lib/router';
import type { Actor } from './actor';
import type { AuditNote } from './audit-note';

/** What an admin route answers: a status and a JSON body. */
export interface AdminReply {
  readonly status: number;
  readonly body: unknown;
}

/**
 * What an admin route is given: the request, its query, and its path parameters as sent; who calls
 * (already allowed by route-access.ts); and where a changing route notes what it changed.
 */
export interface AdminCall {
  readonly req: IncomingMessage;
  readonly search: URLSearchParams;
  readonly params: Params;
  readonly actor: Actor;
  /** Set when the caller is confined to one team (`team_admin`): a route that takes `team_id` in its body holds it to this. */
  readonly team: string | undefined;
  readonly audit: AuditNote;
}

/** One route of the admin API. */
export interface AdminRoute {
  readonly method: string;
  readonly path: string;
  readonly handle: (call: AdminCall) => Promise<AdminReply>;
}

/** Routes that answer `status` with what their `body` gives. */
const answering =
  (status: number) =>
  (method: string, path: string, body: (call: AdminCall) => unknown): AdminRoute => ({
    method,
    path,
    handle: async (call) => ({ status, body: await body(call) }),
  });

export const okRoute = answering(200);
export const createdRoute = answering(201);
