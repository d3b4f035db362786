/**
 * The answers the gateway gives before a request reaches its MCP server object, in the shape the
 * Streamable HTTP transport gives its own (a JSON-RPC error with no id): a request without a session, or
 * with one that does not exist (any more).
 */
import type { ServerResponse } from 'node:http';

export function rpcErrorReply(res: ServerResponse, status: number, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export const missingSession = (res: ServerResponse): void =>
  rpcErrorReply(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');

/** The client starts a new session on a 404 (the specification's signal that its session is gone). */
export const unknownSession = (res: ServerResponse): void =>
  rpcErrorReply(res, 404, -32001, 'Session not found');
