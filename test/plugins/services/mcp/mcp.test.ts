import t from 'tap';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { eventually } from '../../../helpers/wait';
import { startTestGateway, type Teardown, type TestGateway } from '../../../helpers/gateway';
import { gatewayClient } from '../../../helpers/mcp-client';
import { startMcpServer, type TestMcpServer } from '../../../helpers/mcp-server';

const DEMO_TOKEN = 'demo-server-credential';

async function gatewayWithDemo(tt: Teardown): Promise<{ gw: TestGateway; demo: TestMcpServer }> {
  const demo = await startMcpServer(tt);
  const gw = await startTestGateway(tt, (doc) => {
    doc.mcp = { servers: { demo: { url: demo.url, headers: { authorization: `Bearer ${DEMO_TOKEN}` } } } };
  });
  return { gw, demo };
}

t.test('tools of the server are listed and called under the server name', async (t) => {
  const { gw, demo } = await gatewayWithDemo(t);
  const client = await gatewayClient(t, gw);
  const { tools } = await client.listTools();
  t.strictSame(tools.map((tool) => tool.name).sort(), ['demo__add', 'demo__secret', 'demo__slow']);
  const result = await client.callTool({ name: 'demo__add', arguments: { a: 2, b: 3 } });
  t.strictSame(result.content, [{ type: 'text', text: '5' }]);
  t.strictSame(demo.ran, ['add']);
  const auth = new Set(demo.requests.map((h) => h.authorization));
  t.strictSame([...auth], [`Bearer ${DEMO_TOKEN}`], 'the server only ever sees its own credential');
});

t.test('each call leaves a usage record', async (t) => {
  const { gw } = await gatewayWithDemo(t);
  const client = await gatewayClient(t, gw);
  await client.callTool({ name: 'demo__add', arguments: { a: 1, b: 1 } });
  const records = (await gw.gateway.usage.list()).filter((r) => r.endpoint === 'mcp');
  t.equal(records.length, 1);
  t.match(records[0], { endpoint: 'mcp', model: 'demo__add', tool: 'add', server: 'demo', outcome: 'ok' });
});

t.test('progress is relayed as the server reports it', async (t) => {
  const { gw } = await gatewayWithDemo(t);
  const client = await gatewayClient(t, gw);
  const seen: number[] = [];
  const result = await client.callTool(
    { name: 'demo__slow', arguments: { steps: 3, delay_ms: 1 } },
    undefined,
    {
      onprogress: (p) => seen.push(p.progress),
    },
  );
  t.strictSame(seen, [1, 2, 3]);
  t.strictSame(result.content, [{ type: 'text', text: 'done after 3 steps' }]);
});

t.test('no key gets 401', async (t) => {
  const { gw } = await gatewayWithDemo(t);
  const res = await fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  t.equal(res.status, 401);
});

t.test('a key lists and calls only the tools its allowed_tools name', async (t) => {
  const { gw, demo } = await gatewayWithDemo(t);
  const narrowed = await gw.createKey({ allowed_tools: ['demo__add'] });
  const client = await gatewayClient(t, gw, narrowed);
  t.strictSame(
    (await client.listTools()).tools.map((tool) => tool.name),
    ['demo__add'],
  );
  const refused = await client.callTool({ name: 'demo__secret', arguments: {} }).catch((e: unknown) => e);
  t.ok(refused instanceof McpError, 'refused as an MCP error');
  t.match((refused as McpError).message, /tool "demo__secret" is not allowed for this API key/);
  t.notOk(demo.methods.includes('tools/call'), 'the server was never asked');
  const added = await client.callTool({ name: 'demo__add', arguments: { a: 20, b: 22 } });
  t.strictSame(added.content, [{ type: 'text', text: '42' }]);
});

t.test("a team's allowed_tools bound its keys' too", async (t) => {
  const { gw } = await gatewayWithDemo(t);
  const team = await gw.gateway.teams.create({ name: 'Tools', allowed_tools: ['demo__s*'] });
  const key = await gw.createKey({ team_id: team.id, allowed_tools: ['demo__*'] });
  const client = await gatewayClient(t, gw, key);
  t.strictSame((await client.listTools()).tools.map((tool) => tool.name).sort(), [
    'demo__secret',
    'demo__slow',
  ]);
});

t.test("the bundled simulator's tools, as the shipped gateway.yaml declares it", async (t) => {
  const gw = await startTestGateway(t, (doc, sim) => {
    doc.mcp = { servers: { sim: { url: `${sim.url}/mcp` } } };
  });
  const client = await gatewayClient(t, gw);
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  t.ok(names.includes('sim__add') && names.includes('sim__get_weather'), names.join(', '));
  const weather = await client.callTool({ name: 'sim__get_weather', arguments: { city: 'Paris' } });
  t.strictSame(weather.content, [{ type: 'text', text: 'Paris: 0°C, clear' }]);
  const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
  t.strictSame(prompts, ['sim__greeting']);
});

t.test("a server's own notifications reach the client on the session's stream", async (t) => {
  const { gw, demo } = await gatewayWithDemo(t);
  const client = await gatewayClient(t, gw);
  const changed = new Promise<void>((resolve) =>
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
  );
  // The client opens its stream (GET) after the handshake, and the gateway the server's behind it: the
  // server says the list changed until the client has heard it.
  let heard = false;
  void changed.then(() => (heard = true));
  await eventually(() => {
    if (!heard) demo.toolsChanged();
    return heard;
  });
  t.pass('tools/list_changed relayed');
});

t.test('resources of the servers are listed and read through the gateway', async (t) => {
  const gw = await startTestGateway(t, (doc, sim) => {
    doc.mcp = { servers: { sim: { url: `${sim.url}/mcp` } } };
  });
  const client = await gatewayClient(t, gw);
  const { resources } = await client.listResources();
  t.match(resources, [{ uri: 'sim://readme', name: /^sim__/ }]);
  const read = await client.readResource({ uri: 'sim://readme' });
  t.match(read.contents, [{ uri: 'sim://readme', text: String }]);
  const missing = await client.readResource({ uri: 'sim://nothing' }).catch((e: unknown) => e);
  t.match((missing as McpError).message, /unknown resource "sim:\/\/nothing"/);
});
