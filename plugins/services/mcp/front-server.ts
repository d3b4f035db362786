/**
 * The MCP server the client talks to, made for one HTTP request (the client's session lives in its id,
 * not in this object): every configured server's tools and prompts under one name space, narrowed to
 * what the configuration exposes and the caller's key may use, and each call relayed to its server.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  type Prompt,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { FrontRequest } from './front-request';
import { relayCall } from './tool-call';
import { gatewayName, splitName } from './tool-names';
import {
  GATEWAY_INFO,
  RpcError,
  upstreamError,
  type NamedServer,
  type UpstreamLink,
} from './upstream-client';

/** Listings are read whole (the gateway's own answer is one page): this many pages of a server at most. */
const MAX_PAGES = 50;

export function frontServer(front: FrontRequest): Server {
  const server = new Server(GATEWAY_INFO, {
    capabilities: { tools: {}, prompts: {} },
    instructions: 'Tools and prompts of several MCP servers, each named <server>__<name>.',
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listTools(front) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { server: target, tool } = findTool(front, request.params.name);
    return relayCall(front, target, tool, request.params, extra);
  });
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
  server.setNotificationHandler(CancelledNotificationSchema, (notification) => {
    const { requestId, reason } = notification.params;
    if (front.session && requestId !== undefined)
      front.calls.cancel(front.session.id, requestId, reason ?? 'cancelled by the client');
    return Promise.resolve();
  });
  return server;
}

/** The server and its own tool name a client's name stands for; an RpcError when it is not one it may call. */
function findTool(front: FrontRequest, name: string): { server: NamedServer; tool: string } {
  const parts = splitName(name);
  const server = parts && front.servers.find((s) => s.name === parts.server);
  if (!parts || !server || !front.exposes(server, parts.name))
    throw new RpcError(ErrorCode.InvalidParams, `unknown tool "${name}"`);
  if (!front.allows(name))
    throw new RpcError(ErrorCode.InvalidParams, `tool "${name}" is not allowed for this API key`);
  return { server, tool: parts.name };
}

async function listTools(front: FrontRequest): Promise<Tool[]> {
  const each = await eachServer(front, 'tools', async (link) => {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await link.client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: link.server.config.timeout,
      });
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    front.known.listed(
      link.server.name,
      tools.map((tool) => tool.name),
    );
    return tools
      .filter((tool) => front.exposes(link.server, tool.name))
      .map((tool) => ({ ...tool, name: gatewayName(link.server.name, tool.name) }))
      .filter((tool) => front.allows(tool.name));
  });
  return each.flat();
}

async function listPrompts(front: FrontRequest): Promise<Prompt[]> {
  const each = await eachServer(front, 'prompts', async (link) => {
    // A resumed session has no capabilities to read: a server without prompts says "method not found".
    const listed = await link.client.listPrompts({}, { timeout: link.server.config.timeout });
    return listed.prompts.map((prompt) => ({ ...prompt, name: gatewayName(link.server.name, prompt.name) }));
  });
  return each.flat();
}

/**
 * `read` of every configured server, at once. A server that cannot answer is left out of the listing
 * (and logged) rather than failing it: one server down does not hide every other's tools.
 */
async function eachServer<T>(
  front: FrontRequest,
  what: string,
  read: (link: UpstreamLink) => Promise<T[]>,
): Promise<T[][]> {
  return Promise.all(
    front.servers.map(async (server) => {
      try {
        return await read(await front.links.get(server));
      } catch (e) {
        const error = upstreamError(server, e);
        if (error.code !== (ErrorCode.MethodNotFound as number))
          front.logger.warn(
            { server: server.name, err: error.message },
            `MCP server left out of the ${what} listed`,
          );
        return [];
      }
    }),
  );
}
