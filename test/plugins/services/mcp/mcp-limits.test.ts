/**
 * What a key's limits and budget make of its tool calls: a priced tool's cost is spent from the key's
 * budget like a model call's, and the key's concurrency counts calls under way, not the session's
 * long-lived stream.
 */
import t from 'tap';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startTestGateway } from '../../../helpers/gateway';
import { mcpSession } from '../../../helpers/mcp-client';
import { startMcpServer } from '../../../helpers/mcp-server';
import { isError } from '../../../helpers/errors';
import { postJson } from '../../../helpers/http';
import { eventually } from '../../../helpers/wait';

t.test("a priced tool's calls are spent from the key's budget", async (t) => {
  const demo = await startMcpServer(t);
  const gw = await startTestGateway(t, (doc) => {
    doc.mcp = { servers: { demo: { url: demo.url } }, prices: { demo__add: 0.001 } };
  });
  const created = await gw.gateway.keys.create({ budget: { amount_micros: 1_500, period: 'total' } });
  const { client } = await mcpSession(t, gw.url, created.key);
  await client.callTool({ name: 'demo__add', arguments: { a: 1, b: 1 } });
  await client.callTool({ name: 'demo__add', arguments: { a: 1, b: 2 } });
  const records = (await gw.gateway.usage.list({ key_id: created.record.id })).filter(
    (r) => r.endpoint === 'mcp',
  );
  t.strictSame(
    records.map((r) => r.cost_micros),
    [1_000, 1_000],
    'each call costs its price',
  );
  // 2,000 micro-units spent of 1,500: the key's next model call is refused.
  const chat = await postJson(
    `${gw.url}/v1/chat/completions`,
    { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] },
    created.key,
  );
  isError(t, chat, 429, 'budget_exhausted', 'budget is spent');
  const refused = await client
    .callTool({ name: 'demo__add', arguments: { a: 1, b: 3 } })
    .catch((e: unknown) => e);
  t.ok(refused instanceof McpError, 'so is its next priced tool call, as an MCP error');
  t.match((refused as McpError).message, /budget_exhausted: this API key's budget is spent/);
  t.equal(demo.ran.filter((tool) => tool === 'add').length, 2, 'which never reached the server');
  const free = await client.callTool({ name: 'demo__secret', arguments: {} });
  t.strictSame(
    free.content,
    [{ type: 'text', text: 'the secret is 42' }],
    'a tool without a price still answers',
  );
});

t.test("a key's concurrency counts its calls under way, not its session's stream", async (t) => {
  const demo = await startMcpServer(t);
  const gw = await startTestGateway(t, (doc) => {
    doc.mcp = { servers: { demo: { url: demo.url } } };
  });
  const created = await gw.gateway.keys.create({ max_concurrent: 1 });
  const { client } = await mcpSession(t, gw.url, created.key);
  // The client opened its stream (GET) after the handshake, and holds it: it takes no slot.
  await eventually(() => demo.requests.some((h) => h.accept === 'text/event-stream'));
  const slow = client.callTool({ name: 'demo__slow', arguments: { steps: 200, delay_ms: 20 } }, undefined, {
    onprogress: () => undefined,
  });
  await eventually(() => demo.ran.includes('slow'));
  const second = await client
    .callTool({ name: 'demo__add', arguments: { a: 1, b: 1 } })
    .catch((e: unknown) => e);
  t.ok(second instanceof StreamableHTTPError, 'a second call while one is under way is refused');
  t.equal((second as StreamableHTTPError).code, 429);
  t.notOk(demo.ran.includes('add'), 'and never reached the server');
  await slow;
  const after = await client.callTool({ name: 'demo__add', arguments: { a: 1, b: 1 } });
  t.strictSame(after.content, [{ type: 'text', text: '2' }], 'once it ended, the next is served');
});
