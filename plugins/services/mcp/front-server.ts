/**
 * The MCP server the client talks to, made for one HTTP request (the client's session lives in its id,
 * not in this object): every configured server's tools, prompts and resources together, tools narrowed
 * to what the configuration exposes and the caller's key may use, and each request relayed to its server.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { FrontRequest } from './front-request';
import { listPrompts, listResources, listResourceTemplates, listTools } from './listings';
import { readResource } from './resource-read';
import { callTool } from './tool-call';
import { splitName } from './tool-names';
import { GATEWAY_INFO, RpcError, upstreamError } from './upstream-client';

export function frontServer(front: FrontRequest): Server {
  const server = new Server(GATEWAY_INFO, {
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true },
    },
    instructions:
      'Tools, prompts and resources of several MCP servers; tools and prompts are named <server>__<name>.',
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listTools(front) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(front, request.params, extra));
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: await listPrompts(front) }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const parts = splitName(request.params.name);
    const target = parts && front.servers.find((s) => s.name === parts.server);
    if (!parts || !target)
      throw new RpcError(ErrorCode.InvalidParams, `unknown prompt "${request.params.name}"`);
    const link = await front.links.get(target);
    return link.client.getPrompt({ ...request.params, name: parts.name }).catch((e: unknown) => {
      throw upstreamError(target, e);
    });
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: await listResources(front),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: await listResourceTemplates(front),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readResource(front, request.params));
  server.setNotificationHandler(CancelledNotificationSchema, (notification) => {
    const { requestId, reason } = notification.params;
    if (front.session && requestId !== undefined)
      front.calls.cancel(front.session.id, requestId, reason ?? 'cancelled by the client');
    return Promise.resolve();
  });
  return server;
}
