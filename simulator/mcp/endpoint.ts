/**
 * `/mcp`: the simulator's MCP server (Streamable HTTP), mounted beside the vendor families and served by
 * the same router, so its requests are logged, matched by faults and checked for a credential as theirs
 * are. Its credential is optional: with none configured every request is let in; with one, a request
 * without `Authorization: Bearer <it>` is answered 401 with a JSON-RPC error body.
 */
import type { Family, RouteHandler } from '../exchange';
import { bearerAuth } from '../family';
import { jsonRpcErrorBody } from './errors';
import type { McpSessions } from './sessions';

/** Where the MCP server is served. */
export const MCP_PATH = '/mcp';

/** The response header carrying the simulator's id of the request, as the families send theirs. */
const REQUEST_ID_HEADER = 'x-request-id';

/** `handle`, with the request id set first: the SDK's transport writes the answer's other headers. */
const withRequestId =
  (handle: RouteHandler): RouteHandler =>
  (ex) => {
    ex.res.setHeader(REQUEST_ID_HEADER, ex.entry.id);
    return handle(ex);
  };

/** The endpoint, as a family the router mounts: its routes are `sessions`' and its key is the MCP token. */
export function mcpEndpoint(sessions: McpSessions): Family {
  return {
    name: 'mcp',
    mount: MCP_PATH,
    defaultKey: '', // none: the token is optional
    requestIdHeader: REQUEST_ID_HEADER,
    routes: {
      'POST /': withRequestId(sessions.post),
      'GET /': withRequestId(sessions.ofSession),
      'DELETE /': withRequestId(sessions.ofSession),
    },
    authorized: (headers, key) => key === '' || bearerAuth(headers, key),
    errorBody: jsonRpcErrorBody,
  };
}
