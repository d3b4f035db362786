/**
 * The MCP endpoint as a team adopting it sees it, in one run: tools listed and called under the server's
 * name, the server's credential kept between gateway and server, a key narrowed to one tool, no key
 * refused, and a usage record for every call.
 */
import { startTestGateway } from '../../../helpers/gateway'; // first: it loads the plugins
import t from 'tap';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { keyId } from '../../../../core/keys/api-key';
import { isError } from '../../../helpers/errors';
import { postJson } from '../../../helpers/http';
import { mcpSession, toolNames } from '../../../helpers/mcp-client';
import { startMcpServer } from '../../../helpers/mcp-server';
import { until } from '../../../helpers/wait';

const DEMO_TOKEN = 'demo-server-credential';

t.test('list, call, credentials, allowed_tools, 401 and usage, end to end', async (t) => {
  const demo = await startMcpServer(t);
  const gw = await startTestGateway(t, (doc) => {
    doc.mcp = { servers: { demo: { url: demo.url, headers: { authorization: `Bearer ${DEMO_TOKEN}` } } } };
  });

  const { client } = await mcpSession(t, gw.url, gw.key);
  const names = await toolNames(client);
  t.ok(names.includes('demo__add') && names.includes('demo__secret'), `listed: ${names.join(', ')}`);
  const sum = await client.callTool({ name: 'demo__add', arguments: { a: 2, b: 3 } });
  t.strictSame(sum.content, [{ type: 'text', text: '5' }]);
  const secret = await client.callTool({ name: 'demo__secret', arguments: {} });
  t.strictSame(secret.content, [{ type: 'text', text: 'the secret is 42' }]);

  const narrowed = await gw.createKey({ allowed_tools: ['demo__add'] });
  const { client: limited } = await mcpSession(t, gw.url, narrowed);
  t.strictSame(await toolNames(limited), ['demo__add'], 'the narrowed key lists only its tool');
  const ranBefore = [...demo.ran];
  const refused = await limited.callTool({ name: 'demo__secret', arguments: {} }).catch((e: unknown) => e);
  t.ok(refused instanceof McpError, 'refused as an MCP error');
  t.match((refused as McpError).message, /tool "demo__secret" is not allowed for this API key/);
  t.strictSame(demo.ran, ranBefore, 'the server was not asked');
  const allowed = await limited.callTool({ name: 'demo__add', arguments: { a: 40, b: 2 } });
  t.strictSame(allowed.content, [{ type: 'text', text: '42' }]);
  t.strictSame(demo.ran, ['add', 'secret', 'add'], 'the server ran the three calls made');

  const anonymous = await postJson(
    `${gw.url}/mcp`,
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    undefined,
    { accept: 'application/json, text/event-stream' },
  );
  isError(t, anonymous, 401, 'unauthorized');
  const sdkRefused = await mcpSession(t, gw.url, undefined).catch((e: unknown) => e);
  t.ok(sdkRefused instanceof StreamableHTTPError, 'the SDK cannot connect without a key');
  t.equal((sdkRefused as StreamableHTTPError).code, 401);

  // The server saw its own credential on every request, and no gateway key in any header.
  t.ok(demo.requests.length > 0);
  t.strictSame([...new Set(demo.requests.map((h) => h.authorization))], [`Bearer ${DEMO_TOKEN}`]);
  const leaked = demo.requests.filter((h) =>
    Object.values(h).some((v) => [gw.key, narrowed].some((key) => String(v).includes(key))),
  );
  t.strictSame(leaked, [], 'no gateway key reached the server');

  const records = await until(
    async () => (await gw.gateway.usage.list()).filter((r) => r.endpoint === 'mcp'),
    (found) => found.length >= 3,
    { what: 'a usage record for each of the three calls' },
  );
  const seen = records
    .map((r) => ({ key: r.key_id, model: r.model, server: r.server, tool: r.tool, outcome: r.outcome }))
    .sort((x, y) => `${x.key}${x.model}`.localeCompare(`${y.key}${y.model}`));
  const expected = [
    { key: keyId(gw.key), model: 'demo__add', server: 'demo', tool: 'add', outcome: 'ok' },
    { key: keyId(gw.key), model: 'demo__secret', server: 'demo', tool: 'secret', outcome: 'ok' },
    { key: keyId(narrowed), model: 'demo__add', server: 'demo', tool: 'add', outcome: 'ok' },
  ].sort((x, y) => `${x.key}${x.model}`.localeCompare(`${y.key}${y.model}`));
  t.strictSame(seen, expected, 'one record per call made, none for the refused one');
  t.ok(
    records.every((r) => r.endpoint === 'mcp' && r.total_tokens === 0),
    'each an mcp record, with no tokens',
  );
});
