/**
 * Tool calls in the console's usage view, in headless Chromium against a real gateway fronting a real
 * MCP server: calls made with the MCP client (one the tool refuses), and one a server never answered
 * written to the usage store as the MCP endpoint records it. With the endpoint of tool calls chosen, the
 * totals name each tool and its server with no token or cache columns, and the latest calls are listed
 * with their tool, server, key, outcome and cost; the key filter narrows both. Screenshots go to
 * test-output/screenshots/.
 */
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { UsageRecord } from '../../core/stores/usage-store';
import { needsChromium, openConsolePage, shot } from '../helpers/chromium';
import { startTestGateway, type Teardown, type TestGateway } from '../helpers/gateway';
import { postJson } from '../helpers/http';
import { startMcpServer } from '../helpers/mcp-server';

async function mcpClient(t: Teardown, gw: TestGateway, key: string): Promise<Client> {
  const client = new Client({ name: 'console-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  t.teardown(() => client.close());
  return client;
}

/** A call to a server that was down, as the MCP endpoint records it: never answered, so it costs 0. */
const unanswered = (keyId: string): UsageRecord => ({
  id: `mcp-down-${process.pid}`,
  key_id: keyId,
  model: 'search__fetch_page',
  upstream: 'search',
  endpoint: 'mcp',
  status: 200,
  stream: false,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  cost_micros: 0,
  tool: 'fetch_page',
  server: 'search',
  estimated: false,
  outcome: 'upstream_error',
  latency_ms: 1_204,
  created_at: new Date().toISOString(),
});

t.test(
  'the usage view shows tool calls by tool and server, and the latest ones',
  needsChromium,
  async (t) => {
    const demo = await startMcpServer(t);
    const gw = await startTestGateway(t, (doc) => {
      doc.mcp = { servers: { demo: { url: demo.url } }, prices: { demo__add: 0.001 } };
    });
    const keyId = gw.key.slice(0, 11);
    const other = await gw.createKey({ description: 'second agent' });
    const otherId = other.slice(0, 11);

    const agent = await mcpClient(t, gw, gw.key);
    await agent.callTool({ name: 'demo__add', arguments: { a: 1, b: 2 } });
    await agent.callTool({ name: 'demo__add', arguments: { a: 3, b: 4 } });
    // Arguments the tool's schema refuses: the server answers an error, the call is a vendor_error.
    await agent.callTool({ name: 'demo__add', arguments: { a: 'one', b: 2 } }).catch(() => undefined);
    await (await mcpClient(t, gw, other)).callTool({ name: 'demo__secret', arguments: {} });
    gw.gateway.usage.record(unanswered(keyId));
    const chat = await postJson(
      `${gw.url}/v1/chat/completions`,
      { model: 'modela-5.5', messages: [{ role: 'user', content: 'a chat call beside the tools' }] },
      gw.key,
    );
    t.equal(chat.status, 200);
    const recorded = (await gw.gateway.usage.list({ endpoint: 'mcp' })).map((r) => r.outcome);
    t.strictSame(recorded, ['ok', 'ok', 'vendor_error', 'ok', 'upstream_error'], 'five tool calls recorded');

    const { page, problems } = await openConsolePage(t, gw.gateway.adminUrl);
    await page.goto(`${gw.gateway.adminUrl}/`);
    await page.getByLabel('Admin token').fill(gw.gateway.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Keys' }).waitFor();
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.locator('table.usage tr[data-group="modela-5.5"]').waitFor();

    const endpoint = page.getByLabel('Endpoint');
    t.strictSame(
      await endpoint.locator('option').allInnerTexts(),
      ['All endpoints', 'chat-completions', 'mcp (tool calls)'],
      'the endpoint filter offers the tool calls',
    );
    await endpoint.selectOption('mcp');
    await page.locator('section[data-loaded*="endpoint=mcp"]').waitFor();
    await page.getByRole('heading', { name: 'Totals by tool' }).waitFor();
    const usage = page.locator('table.usage');
    t.strictSame(
      await usage.locator('thead th').allInnerTexts(),
      ['tool', 'server', 'requests', 'cost', 'cost unknown requests'],
      'tools and their servers, and no token or cache columns',
    );
    const cells = (group: string) => usage.locator(`tr[data-group="${group}"] td`).allInnerTexts();
    t.strictSame(await cells('demo__add'), ['add', 'demo', '3', '0.003', '0'], 'a priced tool');
    t.strictSame(await cells('demo__secret'), ['secret', 'demo', '1', '0.00', '1'], 'one without a price');
    t.strictSame(
      await cells('search__fetch_page'),
      ['fetch_page', 'search', '1', '0.00', '0'],
      'another server',
    );
    t.strictSame(
      await usage.locator('tr.total td').allInnerTexts(),
      ['all tools', '', '5', '0.003', '1'],
      'and all of them',
    );
    t.equal(
      await usage.locator('tr', { hasText: 'modela-5.5' }).count(),
      0,
      'the chat call is not among them',
    );
    t.equal(await page.locator('[data-figure="saved"]').count(), 0, 'no cache savings beside the spend');
    t.match(
      await page.locator('[data-figure="spend"]').innerText(),
      /Spend\s+0\.003\s+and 1 request of unknown/,
    );
    t.match(
      await page.locator('.chart .u-legend').innerText(),
      /demo__add/,
      "the chart's legend names the tools",
    );

    const calls = page.locator('table.tool-calls tbody tr');
    await calls.nth(4).waitFor();
    // Each call's cells after its time: tool, server, key, outcome, latency, cost.
    const rows: string[][] = [];
    for (let i = 0; i < (await calls.count()); i++) {
      rows.push((await calls.nth(i).locator('td').allInnerTexts()).slice(1));
    }
    t.strictSame(
      rows.map((r) => r.slice(0, 4)),
      [
        ['fetch_page', 'search', keyId, 'upstream_error'],
        ['secret', 'demo', otherId, 'ok'],
        ['add', 'demo', keyId, 'vendor_error'],
        ['add', 'demo', keyId, 'ok'],
        ['add', 'demo', keyId, 'ok'],
      ],
      'the latest calls, newest first: tool, server, key and outcome',
    );
    t.strictSame(
      rows.map((r) => r[5]),
      ['0.00', '—', '0.001', '0.001', '0.001'],
      'each with its cost (— where unknown)',
    );
    t.match(rows[0]?.[4], /^1,204 ms$/, 'and its latency');
    t.match(await calls.first().locator('td').first().innerText(), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await shot(page, 'tool-calls-01-usage');

    await page.getByPlaceholder('Key id (all keys)').fill(otherId);
    await page.getByPlaceholder('Key id (all keys)').press('Enter');
    await page.locator(`section[data-loaded*="key_id=${otherId}"]`).waitFor();
    await page.locator(`.toolbar[data-loaded*="key_id=${otherId}"]`).waitFor();
    t.strictSame(
      await usage.locator('tbody tr').allInnerTexts(),
      [await usage.locator('tr[data-group="demo__secret"]').innerText()],
      'by the second key: its tool alone in the totals',
    );
    t.strictSame(
      await calls.locator('td:nth-child(2)').allInnerTexts(),
      ['secret'],
      'and in the latest calls',
    );
    await shot(page, 'tool-calls-02-by-key');

    await endpoint.selectOption('');
    await page.locator('section[data-loaded]:not([data-loaded*="endpoint="])').waitFor();
    t.equal(await page.locator('table.tool-calls').count(), 0, 'all endpoints: no list of tool calls');
    t.strictSame(
      await usage.locator('thead th').allInnerTexts(),
      [
        'model',
        'requests',
        'input tokens',
        'output tokens',
        'cost',
        'cost unknown requests',
        'saved by cache',
        'batch requests',
        'batch cost',
      ],
      'and the usual columns',
    );
    t.strictSame(problems, [], 'no script errors on the page');
  },
);
