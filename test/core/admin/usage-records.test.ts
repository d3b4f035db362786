/**
 * GET /admin/usage over real HTTP after real calls: tool calls through the MCP endpoint beside a chat
 * call, listed with their tool, server and outcome, and filtered by endpoint and by model; the summary
 * keeps them apart by endpoint; bad parameters get the contract's 400.
 */
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { List, UsageRecord, UsageSummaryRow } from '../../../core/admin/wire';
import { adminCall, type ErrorBody } from '../../helpers/admin';
import { startTestGateway } from '../../helpers/gateway';
import { startMcpServer } from '../../helpers/mcp-server';
import { postJson } from '../../helpers/http';

t.test('tool calls are listed with their tool, server and outcome, by endpoint and model', async (t) => {
  const demo = await startMcpServer(t);
  const gw = await startTestGateway(t, (doc) => {
    doc.mcp = { servers: { demo: { url: demo.url } }, prices: { demo__add: 0.001 } };
  });
  const client = new Client({ name: 'usage-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${gw.key}` } },
    }),
  );
  t.teardown(() => client.close());
  await client.callTool({ name: 'demo__add', arguments: { a: 1, b: 2 } });
  await client.callTool({ name: 'demo__secret', arguments: {} });
  const refused = await client
    .callTool({ name: 'demo__add', arguments: { a: 'one', b: 2 } })
    .catch((e: unknown) => e);
  t.ok(refused, 'a call the tool refuses (its arguments are wrong) is answered');
  const chat = await postJson(
    `${gw.url}/v1/chat/completions`,
    {
      model: 'modela-5.5',
      messages: [{ role: 'user', content: 'hi' }],
    },
    gw.key,
  );
  t.equal(chat.status, 200, 'a chat call beside them');

  const admin = <T>(path: string) => adminCall<T>(gw, gw.gateway.adminToken, 'GET', path);
  const tools = await admin<List<UsageRecord>>('/admin/usage?endpoint=mcp');
  t.equal(tools.status, 200);
  t.strictSame(
    tools.body.data.map((r) => [r.model, r.tool, r.server, r.outcome, r.cost_micros]),
    [
      ['demo__add', 'add', 'demo', 'ok', 1_000],
      ['demo__secret', 'secret', 'demo', 'ok', null],
      ['demo__add', 'add', 'demo', 'vendor_error', 1_000],
    ],
    'the tool calls alone, in order, each with its tool, server, outcome and price (null: none)',
  );
  t.ok(
    tools.body.data.every((r) => r.endpoint === 'mcp' && r.total_tokens === 0 && r.latency_ms >= 0),
    'no tokens, a latency',
  );
  const adds = await admin<List<UsageRecord>>('/admin/usage?endpoint=mcp&model=demo__add&limit=1');
  t.strictSame(
    adds.body.data.map((r) => r.outcome),
    ['vendor_error'],
    'by endpoint and model, the latest one',
  );
  const chats = await admin<List<UsageRecord>>('/admin/usage?endpoint=chat-completions');
  t.strictSame(
    chats.body.data.map((r) => [r.model, r.tool]),
    [['modela-5.5', undefined]],
    'another endpoint: its calls, without tool fields',
  );
  t.strictSame(
    (await admin<List<UsageRecord>>('/admin/usage?model=demo__secret')).body.data.map((r) => r.id),
    tools.body.data.filter((r) => r.model === 'demo__secret').map((r) => r.id),
    'by model alone',
  );

  const summary = await admin<List<UsageSummaryRow>>('/admin/usage/summary?group_by=model&endpoint=mcp');
  t.strictSame(
    summary.body.data.map((r) => [
      r.model,
      r.requests,
      r.input_tokens,
      r.cost_micros,
      r.cost_unknown_requests,
    ]),
    [
      ['demo__add', 2, 0, 2_000, 0],
      ['demo__secret', 1, 0, 0, 1],
    ],
    'the summary of the tool calls, by the name the clients called',
  );

  const unknown = await admin<ErrorBody>('/admin/usage?endpoint=mcp&tool=add');
  t.equal(unknown.status, 400, 'a filter the listing does not apply is refused');
  t.match(unknown.body.error.message, /tool/);
  const twice = await admin<ErrorBody>('/admin/usage?endpoint=mcp&endpoint=chat-completions');
  t.equal(twice.status, 400, 'a filter given twice is refused');
});
