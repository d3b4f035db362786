import type { IncomingMessage } from 'node:http';
import type { Params } from '../../lib/router';

/** What an admin route answers: a status and a JSON body. */
export interface AdminReply {
  readonly status: number;
  readonly body: unknown;
}

/** What an admin route is given: the request, its query, and its path parameters as sent. */
export interface AdminCall {
  readonly req: IncomingMessage;
  readonly search: URLSearchParams;
  readonly params: Params;
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
