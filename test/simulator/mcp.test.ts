/**
 * The simulator's MCP server at `/mcp`, through the SDK's own client over Streamable HTTP: its tools with
 * their exact answers, `slow`'s progress and cancellation, the prompt and the resource, sessions (GET
 * stream, DELETE), the request log, and the optional bearer token.
 */
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { BatchRegistry } from '../../simulator/batch-registry';
import { Faults } from '../../simulator/faults';
import { README_TEXT } from '../../simulator/mcp/catalog';
import { McpSessions } from '../../simulator/mcp/sessions';
import { weatherOf } from '../../simulator/mcp/tools';
import { PromptCache } from '../../simulator/prompt-cache';
import { RequestLog } from '../../simulator/request-log';
import { createRouter } from '../../simulator/router';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { TaskRegistry } from '../../simulator/tasks/registry';
import { until } from '../helpers/wait';
import { connectMcp, firstText, mcpRequests, untilStreamAsked, type Connected } from './mcp-client';

/** Connects, and closes the client at the end of `t`, a subtest: before its simulator closes. */
async function connected(
  t: Test,
  sim: RunningSimulator,
  headers?: Record<string, string>,
): Promise<Connected> {
  const mcp = await connectMcp(sim, headers);
  t.teardown(() => mcp.client.close());
  return mcp;
}

/** A raw JSON-RPC POST to `/mcp` of the simulator at `url`, as a client without the SDK sends it. */
function post(url: string, message: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(message),
  });
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

void t.test('MCP server', async (t) => {
  const sim = await startSimulator();
  const { client, transport } = await connectMcp(sim);
  t.teardown(async () => {
    await client.close(); // before the simulator: it would try to reconnect its stream
    await sim.close();
  });

  await t.test('lists its four tools', async (t) => {
    const { tools } = await client.listTools();
    t.strictSame(tools.map((tool) => tool.name).sort(), ['add', 'get_weather', 'secret', 'slow']);
    const slow = tools.find((tool) => tool.name === 'slow');
    t.match(slow?.inputSchema, {
      properties: { steps: { type: 'integer', default: 3 }, delay_ms: { type: 'integer', default: 50 } },
    });
  });

  await t.test('add answers the sum as text and as structured content', async (t) => {
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 40.5 } });
    t.equal(firstText(result), '42.5');
    t.strictSame(result.structuredContent, { sum: 42.5 });
    t.notOk(result.isError);
  });

  await t.test('get_weather: the same report for the same city, an error result for none', async (t) => {
    const paris = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
    t.equal(firstText(paris), 'Paris: 0°C, clear');
    const again = await client.callTool({ name: 'get_weather', arguments: { city: ' paris ' } });
    t.equal(firstText(again), 'paris: 0°C, clear', 'case and spaces aside, the same weather');
    const tokyo = await client.callTool({ name: 'get_weather', arguments: { city: 'Tokyo' } });
    t.equal(firstText(tokyo), weatherOf('Tokyo'));
    t.not(firstText(tokyo), 'Tokyo: 0°C, clear', 'another city, another report');
    const none = await client.callTool({ name: 'get_weather', arguments: { city: '  ' } });
    t.equal(none.isError, true);
    t.equal(firstText(none), 'city must not be empty');
  });

  await t.test('secret tells the secret, and the call is recorded', async (t) => {
    sim.mcp.calls.clear();
    const result = await client.callTool({ name: 'secret', arguments: {} });
    t.equal(firstText(result), 'the secret is 42');
    t.match(sim.mcp.calls.list('secret'), [{ session: transport.sessionId, outcome: 'done' }]);
  });

  await t.test('slow sends a progress notification per step, then answers', async (t) => {
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { steps: 4, delay_ms: 0 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    t.equal(firstText(result), 'done after 4 steps');
    t.strictSame(
      progress,
      [1, 2, 3, 4].map((i) => ({ progress: i, total: 4, message: `step ${i}` })),
    );
  });

  await t.test('slow takes its defaults without a progress token', async (t) => {
    sim.mcp.calls.clear();
    const result = await client.callTool({ name: 'slow', arguments: {} });
    t.equal(firstText(result), 'done after 3 steps');
    t.match(sim.mcp.calls.list('slow'), [
      { arguments: { steps: 3, delay_ms: 50 }, steps: 3, outcome: 'done' },
    ]);
  });

  await t.test('a cancelled slow call stops at the step it was in', async (t) => {
    sim.mcp.calls.clear();
    const abort = new AbortController();
    // Cancelled at the first progress; the second step is 5 s away, so only the cancellation ends it.
    const call = client.callTool({ name: 'slow', arguments: { steps: 3, delay_ms: 5000 } }, undefined, {
      signal: abort.signal,
      onprogress: () => abort.abort('enough'),
    });
    await t.rejects(call, 'the caller sees its own cancellation');
    const [stopped] = await until(
      () => sim.mcp.calls.list('slow'),
      (calls) => calls[0]?.outcome === 'cancelled',
      { what: 'the slow call cancelled on the server' },
    );
    t.equal(stopped?.steps, 1, 'no step after the cancellation');
    const cancels = mcpRequests(sim).filter(
      (e) => (e.body as { method?: string } | null)?.method === 'notifications/cancelled',
    );
    t.equal(cancels.length, 1, 'the client sent notifications/cancelled');
  });

  await t.test('lists and gets the greeting prompt', async (t) => {
    const { prompts } = await client.listPrompts();
    t.match(prompts, [{ name: 'greeting', arguments: [{ name: 'name', required: true }] }]);
    const prompt = await client.getPrompt({ name: 'greeting', arguments: { name: 'Ada' } });
    t.strictSame(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Say hello to Ada.' } }]);
  });

  await t.test('lists and reads the readme resource', async (t) => {
    const { resources } = await client.listResources();
    t.match(resources, [{ uri: 'sim://readme', name: 'readme', mimeType: 'text/plain' }]);
    const read = await client.readResource({ uri: 'sim://readme' });
    t.strictSame(read.contents, [{ uri: 'sim://readme', mimeType: 'text/plain', text: README_TEXT }]);
  });

  await t.test('logs every /mcp request with the headers received', async (t) => {
    const session = transport.sessionId;
    await untilStreamAsked(sim, session); // the server-to-client stream
    const entries = mcpRequests(sim);
    t.equal(entries[0]?.method, 'POST');
    t.match(entries[0]?.body, { method: 'initialize' });
    const calls = entries.filter((e) => (e.body as { method?: string } | null)?.method === 'tools/call');
    t.ok(calls.length > 0);
    for (const call of calls) t.equal(call.headers['mcp-session-id'], session);
    t.match(
      sim.log.list().find((e) => e.path === '/mcp' && e.finished),
      { status: 200 },
    );
  });

  await t.test('/_sim/mcp shows the sessions and the calls', async (t) => {
    await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
    const view = (await (await fetch(`${sim.url}/_sim/mcp?tool=add`)).json()) as {
      sessions: string[];
      calls: unknown[];
    };
    t.strictSame(view.sessions, [transport.sessionId]);
    t.match(view.calls, [{ tool: 'add', arguments: { a: 1, b: 1 }, steps: 0, outcome: 'done' }]);
    const cleared = await fetch(`${sim.url}/_sim/mcp`, { method: 'DELETE' });
    t.match(await cleared.json(), { ok: true, cleared: Number });
    t.strictSame(sim.mcp.calls.list(), []);
  });

  await t.test('DELETE ends the session', async (t) => {
    const other = await connectMcp(sim);
    const id = other.transport.sessionId;
    t.ok(id && sim.mcp.ids().includes(id));
    await other.transport.terminateSession();
    t.notOk(sim.mcp.ids().includes(id!), 'gone from the open sessions');
    const again = await post(
      sim.url,
      { jsonrpc: '2.0', id: 9, method: 'tools/list' },
      { 'mcp-session-id': id! },
    );
    t.equal(again.status, 404);
    t.strictSame(await again.json(), {
      jsonrpc: '2.0',
      error: { code: -32001, message: 'Session not found' },
      id: null,
    });
    await other.client.close();
  });

  await t.test('a request with no session that does not initialize one is refused', async (t) => {
    const res = await post(sim.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    t.equal(res.status, 400);
    t.match(await res.json(), { jsonrpc: '2.0', error: { code: -32000, message: /No valid session ID/ } });
    const bad = await fetch(`${sim.url}/mcp`, { method: 'POST', body: '{not json' });
    t.equal(bad.status, 400);
    t.match(await bad.json(), { jsonrpc: '2.0', error: { code: -32700 }, id: null });
  });
});

void t.test('MCP server with a token', async (t) => {
  const sim = await startSimulator({ mcpToken: 'tool-token' });
  t.teardown(() => sim.close());

  await t.test('a request without the bearer token gets 401 and a JSON-RPC error', async (t) => {
    const refused: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong' },
      { authorization: 'tool-token' },
    ];
    for (const headers of refused) {
      const res = await post(sim.url, INITIALIZE, headers);
      t.equal(res.status, 401, JSON.stringify(headers));
      t.match(await res.json(), {
        jsonrpc: '2.0',
        error: { code: -32000, message: /^Unauthorized/ },
        id: null,
      });
    }
    const get = await fetch(`${sim.url}/mcp`, { headers: { 'mcp-session-id': 'any' } });
    t.equal(get.status, 401, 'every method');
    t.strictSame(sim.mcp.ids(), [], 'no session opened');
  });

  await t.test("the SDK's client is refused without it", async (t) => {
    await t.rejects(connectMcp(sim), { code: 401 });
  });

  await t.test('with it, the session works and the server sees the token', async (t) => {
    const { client } = await connected(t, sim, { authorization: 'Bearer tool-token' });
    t.equal(firstText(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })), '3');
    const entries = mcpRequests(sim).filter((e) => e.status !== 401);
    t.ok(entries.length >= 3, 'initialize, initialized, the call');
    for (const entry of entries) t.equal(entry.headers.authorization, 'Bearer tool-token');
  });
});

void t.test('past the most sessions kept, the oldest is closed', async (t) => {
  const mcp = new McpSessions(2);
  const router = createRouter({
    families: [],
    keys: {},
    ...{
      log: new RequestLog(),
      tasks: new TaskRegistry(),
      faults: new Faults(),
      promptCache: new PromptCache(),
      batches: new BatchRegistry(),
    },
    mcp,
  });
  const server = createServer(router);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    await mcp.closeAll();
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ids: (string | null)[] = [];
  for (let i = 0; i < 3; i++) {
    const opened = await post(url, INITIALIZE);
    await opened.text();
    ids.push(opened.headers.get('mcp-session-id'));
  }
  await until(
    () => mcp.ids(),
    (open) => open.length === 2,
    { what: 'two sessions open' },
  );
  t.strictSame(mcp.ids(), ids.slice(1), 'the newest two');
  const oldest = await post(
    url,
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { 'mcp-session-id': ids[0]! },
  );
  t.equal(oldest.status, 404);
});
