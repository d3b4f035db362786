import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerCatalog } from './catalog';
import type { ToolCalls } from './tool-calls';
import { registerTools } from './tools';

/** How the server names itself in its `initialize` answer. */
export const SERVER_INFO = { name: 'upstream-simulator', version: '1.0.0' } as const;

/** A fresh MCP server for one session (an McpServer serves one transport): the tools, the prompt, the resource. */
export function toolServer(calls: ToolCalls): McpServer {
  const server = new McpServer(SERVER_INFO);
  registerTools(server, calls);
  registerCatalog(server);
  return server;
}
