import t from 'tap';
import { ConfigError } from '../../../../config/errors';
import { startTestGateway } from '../../../helpers/gateway';
import { gatewayClient } from '../../../helpers/mcp-client';
import { startMcpServer } from '../../../helpers/mcp-server';
import { scrape } from '../../../helpers/metrics';
import { startOtlpReceiver } from '../../../helpers/otlp-receiver';
import { capturingLogger } from '../../../helpers/stores';
import { eventually } from '../../../helpers/wait';

t.test('calls are counted by server, tool and outcome, and timed', async (t) => {
  const demo = await startMcpServer(t);
  const gw = await startTestGateway(t, (doc) => {
    doc.mcp = { servers: { demo: { url: demo.url } } };
  });
  const client = await gatewayClient(t, gw);
  await client.listTools();
  await client.callTool({ name: 'demo__add', arguments: { a: 1, b: 2 } });
  await client.callTool({ name: 'demo__add', arguments: { a: 1, b: 3 } });
  await client.callTool({ name: 'demo__made_up', arguments: {} }).catch(() => undefined);
  const metrics = await scrape(gw.gateway.adminUrl);
  t.equal(metrics.types.get('gateway_mcp_calls_total'), 'counter');
  t.equal(metrics.value('gateway_mcp_calls_total', { server: 'demo', tool: 'add', outcome: 'ok' }), 2);
  t.equal(
    metrics.value('gateway_mcp_calls_total', { server: 'demo', tool: '_unlisted', outcome: 'vendor_error' }),
    1,
    'a name the server never listed is not a label of its own',
  );
  t.equal(metrics.value('gateway_mcp_call_duration_seconds_count', { server: 'demo', tool: 'add' }), 2);
});

t.test("the access line names the tool, its server and the call's outcome", async (t) => {
  const demo = await startMcpServer(t);
  const { logger, lines } = capturingLogger();
  const gw = await startTestGateway(
    t,
    (doc) => {
      doc.mcp = { servers: { demo: { url: demo.url } } };
      doc.logging = { level: 'info' };
    },
    { logger },
  );
  const client = await gatewayClient(t, gw);
  await client.callTool({ name: 'demo__add', arguments: { a: 1, b: 2 } });
  await client.callTool({ name: 'demo__nope', arguments: {} }).catch(() => undefined);
  await eventually(() => lines.filter((l) => l.msg === 'request' && l.model !== undefined).length === 2);
  const calls = lines.filter((l) => l.msg === 'request' && l.model !== undefined);
  t.match(calls, [
    { path: '/mcp', status: 200, model: 'demo__add', upstream: 'demo', outcome: 'ok', key_id: String },
    { path: '/mcp', status: 200, model: 'demo__nope', upstream: 'demo', outcome: 'vendor_error' },
  ]);
});

t.test("a tools pattern that matches none of the server's tools stops start-up, naming it", async (t) => {
  const demo = await startMcpServer(t);
  const error = await startTestGateway(t, (doc) => {
    doc.mcp = { servers: { demo: { url: demo.url, tools: ['add', 'serch*'] } } };
  }).catch((e: unknown) => e);
  t.ok(error instanceof ConfigError);
  t.match((error as ConfigError).problems, [
    {
      path: 'mcp.servers.demo.tools[1]',
      reason: /'serch\*' matches none of the server's tools \(add, secret, slow\)/,
    },
  ]);
});

t.test("a traced tool call is a CLIENT span under the request's SERVER span", async (t) => {
  const demo = await startMcpServer(t);
  const receiver = await startOtlpReceiver(t);
  const gw = await startTestGateway(t, (doc) => {
    doc.mcp = { servers: { demo: { url: demo.url } } };
    doc.tracing = { endpoint: receiver.url, batch: { schedule_delay: '20ms' } };
  });
  const client = await gatewayClient(t, gw);
  await client.callTool({ name: 'demo__add', arguments: { a: 1, b: 2 } });
  const spans = await receiver.until((all) => all.some((s) => s.name === 'tools/call add'));
  const call = spans.find((s) => s.name === 'tools/call add')!;
  t.equal(call.kind, 3, 'CLIENT');
  t.match(call.attributes, {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'add',
    'gateway.upstream': 'demo',
  });
  const parent = await receiver.until((all) => all.some((s) => s.spanId === call.parentSpanId));
  t.equal(parent.find((s) => s.spanId === call.parentSpanId)!.kind, 2, "under the request's SERVER span");
});
