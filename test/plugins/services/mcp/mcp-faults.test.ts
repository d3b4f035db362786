import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EmptyResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { startTestGateway, type Teardown, type TestGateway } from '../../../helpers/gateway';
import { gatewayClient } from '../../../helpers/mcp-client';
import { startMcpServer } from '../../../helpers/mcp-server';
import { eventually } from '../../../helpers/wait';

async function withServers(
  tt: Teardown,
  servers: Record<string, Record<string, unknown>>,
): Promise<TestGateway> {
  return startTestGateway(tt, (doc) => {
    doc.mcp = { servers };
  });
}

/** A port nothing listens on. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/mcp`;
}

t.test('a server that is down is left out of listings, and calls to it name it', async (t) => {
  const demo = await startMcpServer(t);
  const gw = await withServers(t, { demo: { url: demo.url }, gone: { url: await closedPort() } });
  const client = await gatewayClient(t, gw);
  const { tools } = await client.listTools();
  t.strictSame(tools.map((tool) => tool.name).sort(), ['demo__add', 'demo__secret', 'demo__slow']);
  const error = await client.callTool({ name: 'gone__anything', arguments: {} }).catch((e: unknown) => e);
  t.ok(error instanceof McpError, 'an MCP error');
  t.match((error as McpError).message, /MCP server "gone" failed/);
  const records = (await gw.gateway.usage.list()).filter((r) => r.endpoint === 'mcp');
  t.match(records, [{ server: 'gone', tool: 'anything', outcome: 'upstream_error', cost_micros: 0 }]);
});

t.test('a server slower than its timeout gives an error naming it', async (t) => {
  const demo = await startMcpServer(t);
  const gw = await withServers(t, { demo: { url: demo.url, timeout: '200ms' } });
  const client = await gatewayClient(t, gw);
  const error = await client
    .callTool({ name: 'demo__slow', arguments: { steps: 50, delay_ms: 100 } })
    .catch((e: unknown) => e);
  t.ok(error instanceof McpError);
  t.match((error as McpError).message, /MCP server "demo" did not answer within 200 ms/);
  // The gateway told the server it gave up: its handler stopped early.
  await eventually(() => demo.slowSteps.length === 1);
  t.ok(demo.slowSteps[0]! < 50, `the server stopped before its last step (${demo.methods.join(', ')})`);
});

t.test("the client's cancellation stops the call at the server", async (t) => {
  const demo = await startMcpServer(t);
  const gw = await withServers(t, { demo: { url: demo.url } });
  const client = await gatewayClient(t, gw);
  const controller = new AbortController();
  const call = client
    .callTool({ name: 'demo__slow', arguments: { steps: 500, delay_ms: 20 } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        if (p.progress === 2) controller.abort('enough');
      },
    })
    .catch((e: unknown) => e);
  t.ok((await call) instanceof Error, 'the client sees its call cancelled');
  await eventually(() => demo.slowSteps.length === 1);
  t.ok(demo.slowSteps[0]! < 500, 'the server stopped early');
  await eventually(async () =>
    (await gw.gateway.usage.list()).some((r) => r.endpoint === 'mcp' && r.outcome === 'client_closed'),
  );
});

t.test('unknown tools and names the gateway never gave are refused without asking a server', async (t) => {
  const demo = await startMcpServer(t);
  const gw = await withServers(t, { demo: { url: demo.url, tools: ['add'] } });
  const client = await gatewayClient(t, gw);
  t.strictSame(
    (await client.listTools()).tools.map((tool) => tool.name),
    ['demo__add'],
    'tools narrows',
  );
  for (const name of ['demo__secret', 'nobody__add', 'add', 'demo__']) {
    const error = await client.callTool({ name, arguments: {} }).catch((e: unknown) => e);
    t.ok(error instanceof McpError, name);
    t.match((error as McpError).message, new RegExp(`unknown tool "${name}"`));
  }
  t.strictSame(demo.ran, [], 'the server was never asked');
});

t.test('a session belongs to its key, and ends with DELETE', async (t) => {
  const demo = await startMcpServer(t);
  const gw = await withServers(t, { demo: { url: demo.url } });
  const client = await gatewayClient(t, gw);
  const transport = client.transport as StreamableHTTPClientTransport;
  const sessionId = transport.sessionId!;
  const other = await gw.createKey({});
  const asOther = await fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${other}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  t.equal(asOther.status, 404, 'another key is told the session does not exist');
  t.match(await asOther.json(), { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } });
  t.equal(demo.sessions.size, 1);
  await transport.terminateSession();
  t.equal(demo.sessions.size, 0, "the server's session ended too");
  const after = await fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${gw.key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  t.equal(after.status, 404);
});

t.test('malformed messages get JSON-RPC errors', async (t) => {
  const gw = await withServers(t, {});
  const post = (body: string, session?: string) =>
    fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${gw.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(session ? { 'mcp-session-id': session } : {}),
      },
      body,
    });
  const missing = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
  t.equal(missing.status, 400, 'no session');
  t.match(await missing.json(), { error: { code: -32000 } });
  const forged = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), 'not-a-session');
  t.equal(forged.status, 404);
  const garbage = await post('{"jsonrpc": "2.0", "id": ');
  t.equal(garbage.status, 400);
  t.match(await garbage.json(), { jsonrpc: '2.0', error: { code: -32700 } });
});

t.test('a server that goes away mid-stream ends the call with an error naming it', async (t) => {
  const demo = await startMcpServer(t);
  const gw = await withServers(t, { demo: { url: demo.url } });
  const client = await gatewayClient(t, gw);
  const error = await client
    .callTool({ name: 'demo__slow', arguments: { steps: 500, delay_ms: 20 } }, undefined, {
      onprogress: (p) => {
        if (p.progress === 2) demo.cut();
      },
    })
    .catch((e: unknown) => e);
  t.ok(error instanceof McpError, 'an MCP error, long before the call could have ended');
  t.match((error as McpError).message, /MCP server "demo" failed/);
  await eventually(async () =>
    (await gw.gateway.usage.list()).some((r) => r.endpoint === 'mcp' && r.outcome === 'upstream_error'),
  );
});

t.test('a server answering what is not MCP gives an error naming it', async (t) => {
  const garbage = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>a login page</html>');
  });
  await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => garbage.close(resolve)));
  const url = `http://127.0.0.1:${(garbage.address() as AddressInfo).port}/mcp`;
  const demo = await startMcpServer(t);
  const gw = await withServers(t, { demo: { url: demo.url }, junk: { url } });
  const client = await gatewayClient(t, gw);
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  t.notOk(
    names.some((name) => name.startsWith('junk__')),
    'left out of the listing',
  );
  const error = await client.callTool({ name: 'junk__anything', arguments: {} }).catch((e: unknown) => e);
  t.ok(error instanceof McpError);
  t.match((error as McpError).message, /MCP server "junk" failed/);
});

t.test('an unknown method gets the JSON-RPC error for it', async (t) => {
  const gw = await withServers(t, {});
  const client = await gatewayClient(t, gw);
  const error = await client
    .request({ method: 'no/such/method', params: {} }, EmptyResultSchema)
    .catch((e: unknown) => e);
  t.ok(error instanceof McpError);
  t.equal((error as McpError).code, ErrorCode.MethodNotFound);
});
