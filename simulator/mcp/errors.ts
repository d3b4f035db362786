/**
 * The simulator's own error answers on `/mcp` (a missing or wrong credential, a fault's status, a request
 * with no session) as JSON-RPC error bodies, the shape the SDK's transport answers its own errors in:
 * `{"jsonrpc": "2.0", "error": {"code", "message"}, "id": null}`.
 */
import { SimError } from '../sim-error';

/** The JSON-RPC code for a SimError's `detail.code`, where it names one. */
const CODES: Readonly<Record<string, number>> = {
  invalid_json: -32700, // parse error
  session_not_found: -32001, // what the SDK answers for an unknown session
};

/** Messages for the statuses the simulator raises without one; any other reads `HTTP <status>`. */
const MESSAGES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized: send Authorization: Bearer <the simulator’s MCP token>',
  404: 'Not Found',
};

/** The JSON-RPC error body for `err`: -32603 (internal error) for a 5xx, else -32000 (the server's own). */
export function jsonRpcErrorBody(err: SimError): unknown {
  const named = err.detail.code ? CODES[err.detail.code] : undefined;
  return {
    jsonrpc: '2.0',
    error: {
      code: named ?? (err.status >= 500 ? -32603 : -32000),
      message: err.detail.message ?? MESSAGES[err.status] ?? `HTTP ${err.status}`,
    },
    id: null,
  };
}

/** The session errors of the SDK's stateful example server, as SimErrors. */
export const McpErrors = {
  noSession: () =>
    new SimError(400, { message: 'Bad Request: No valid session ID provided', code: 'no_session' }),
  unknownSession: () => new SimError(404, { message: 'Session not found', code: 'session_not_found' }),
} as const;
