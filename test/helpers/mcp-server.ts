/**
 * A tool server for tests, built with the official MCP SDK (McpServer over its Streamable HTTP transport,
 * with sessions), on a free port: `add`, `secret`, and `slow` (progress per step, stops when cancelled).
 * It keeps the headers of every request it received, so a test can see what the gateway sent it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import type { Teardown } from './gateway';

export interface TestMcpServer {
  readonly url: string;
  /** The headers of each request, in order. */
  readonly requests: IncomingHttpHeaders[];
  /** The JSON-RPC methods of the messages it received, in order. */
  readonly methods: string[];
  /** Tool calls the server ran, by tool name. */
  readonly ran: string[];
  /** How many steps `slow` calls completed before they ended (cancelled or not). */
  readonly slowSteps: number[];
  /** Tells every open session that the tool list changed (on its server-to-client stream). */
  toolsChanged(): void;
  /** Drops every connection at once, as a server that went away would. */
  cut(): void;
  /** Sessions the server still holds. */
  readonly sessions: Map<string, StreamableHTTPServerTransport>;
}

function toolServer(state: TestMcpServer): McpServer {
  const server = new McpServer({ name: 'demo', version: '1.0.0' });
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    ({ a, b }) => {
      state.ran.push('add');
      return { content: [{ type: 'text', text: String(a + b) }] };
    },
  );
  server.registerTool('secret', { description: 'Tells the secret' }, () => {
    state.ran.push('secret');
    return { content: [{ type: 'text', text: 'the secret is 42' }] };
  });
  server.registerTool(
    'slow',
    { description: 'Works in steps', inputSchema: { steps: z.number().int(), delay_ms: z.number().int() } },
    async ({ steps, delay_ms }, extra) => {
      state.ran.push('slow');
      let done = 0;
      try {
        for (; done < steps; done++) {
          if (extra.signal.aborted) break;
          const token = extra._meta?.progressToken;
          if (token !== undefined)
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: done + 1, total: steps, message: `step ${done + 1}` },
            });
          await new Promise((resolve) => setTimeout(resolve, delay_ms));
        }
      } finally {
        state.slowSteps.push(done);
      }
      return { content: [{ type: 'text', text: `done after ${done} steps` }] };
    },
  );
  server.registerPrompt('greeting', { argsSchema: { name: z.string() } }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}` } }],
  }));
  return server;
}

export async function startMcpServer(t: Teardown): Promise<TestMcpServer> {
  const state: TestMcpServer = {
    url: '',
    requests: [],
    methods: [],
    ran: [],
    slowSteps: [],
    sessions: new Map(),
    cut: () => http.closeAllConnections(),
    toolsChanged: () => {
      for (const server of servers) server.sendToolListChanged();
    },
  };
  const servers: McpServer[] = [];
  const http = createServer((req, res) => void serve(req, res));
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    state.requests.push(req.headers);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text === '' ? undefined : (JSON.parse(text) as { method?: string });
    if (body?.method) state.methods.push(body.method);
    const id = req.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? state.sessions.get(id) : undefined;
    if (existing) {
      await existing.handleRequest(req, res, body);
      return;
    }
    if (typeof id === 'string') {
      res.writeHead(404).end();
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void state.sessions.set(sid, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) state.sessions.delete(transport.sessionId);
    };
    const server = toolServer(state);
    servers.push(server);
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    http.closeAllConnections();
    return new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return Object.assign(state, { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` });
}
