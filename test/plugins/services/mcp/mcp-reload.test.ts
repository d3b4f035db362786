/**
 * The MCP endpoint across hot reloads of a real gateway.yaml: a server added serves new sessions and the
 * sessions already open (each reaching it with a session of its own per request), a server removed is
 * gone for everyone, and a bad `mcp:` section is refused while the running servers keep serving.
 */
import { startFileGateway, type FileGateway } from '../../../helpers/reload'; // first: it loads the plugins
import t from 'tap';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigDoc } from '../../../helpers/gateway';
import { mcpSession, toolNames } from '../../../helpers/mcp-client';
import { startMcpServer } from '../../../helpers/mcp-server';
import { until } from '../../../helpers/wait';

const DEMO_TOOLS = ['demo__add', 'demo__secret', 'demo__slow'];
const OTHER_TOOLS = ['other__add', 'other__secret', 'other__slow'];

type Servers = Record<string, Record<string, unknown>>;

/** The file's document with `mcp.servers` replaced. */
function withServers(gw: FileGateway, servers: Servers): ConfigDoc {
  const doc = gw.doc();
  doc.mcp = { servers };
  return doc;
}

/** Writes `doc` and applies it through the admin API, which answers once the reload has applied or failed. */
async function reload(gw: FileGateway, doc: ConfigDoc) {
  await gw.write(doc);
  return gw.admin('POST', '/admin/reload');
}

t.test('a reload adds a server for new and open sessions, and removes one for both', async (t) => {
  const demo = await startMcpServer(t);
  const other = await startMcpServer(t);
  const gw = await startFileGateway(t, (doc) => {
    doc.mcp = { servers: { demo: { url: demo.url } } };
  });
  const { client: old } = await mcpSession(t, gw.url, gw.key);
  t.strictSame(await toolNames(old), DEMO_TOOLS, 'before: the one server');
  t.strictSame((await old.callTool({ name: 'demo__add', arguments: { a: 1, b: 1 } })).content, [
    { type: 'text', text: '2' },
  ]);

  const added = await reload(gw, withServers(gw, { demo: { url: demo.url }, other: { url: other.url } }));
  t.equal(added.status, 200);
  t.match(added.body, { applied: true, last_error: null }, 'the reload applied');

  const { client: fresh } = await mcpSession(t, gw.url, gw.key);
  t.strictSame(await toolNames(fresh), [...DEMO_TOOLS, ...OTHER_TOOLS], 'a new session lists both');
  t.strictSame(await toolNames(old), [...DEMO_TOOLS, ...OTHER_TOOLS], 'so does the session opened before');
  const sum = await old.callTool({ name: 'other__add', arguments: { a: 20, b: 22 } });
  t.strictSame(sum.content, [{ type: 'text', text: '42' }], 'the old session calls the added server');
  t.strictSame(other.ran, ['add'], 'the added server ran it');
  // The old session has no session at `other`: each of its requests there opened one and ended it. The
  // new session's own (opened at its initialize) is the one left.
  await until(
    () => other.sessions.size,
    (n) => n === 1,
    { what: "the old session's per-request sessions at the added server ended" },
  );

  const demoRan = demo.ran.length;
  const removed = await reload(gw, withServers(gw, { other: { url: other.url } }));
  t.match(removed.body, { applied: true, last_error: null }, 'the second reload applied');
  for (const [name, client] of [
    ['old', old],
    ['new', fresh],
  ] as const) {
    const refused = await client
      .callTool({ name: 'demo__add', arguments: { a: 1, b: 2 } })
      .catch((e: unknown) => e);
    t.ok(refused instanceof McpError, `${name} session: refused as an MCP error`);
    t.match((refused as McpError).message, /unknown tool "demo__add"/, `${name} session: names the tool`);
    t.strictSame(await toolNames(client), OTHER_TOOLS, `${name} session: the removed server is not listed`);
  }
  t.equal(demo.ran.length, demoRan, 'the removed server was never asked');
  t.strictSame(
    (await old.callTool({ name: 'other__add', arguments: { a: 2, b: 3 } })).content,
    [{ type: 'text', text: '5' }],
    'the server that stays still answers',
  );
});

t.test('a bad mcp section is refused and the running servers keep serving', async (t) => {
  const demo = await startMcpServer(t);
  const gw = await startFileGateway(t, (doc) => {
    doc.mcp = { servers: { demo: { url: demo.url } } };
  });
  const { client } = await mcpSession(t, gw.url, gw.key);
  const version = (await gw.admin('GET', '/admin/config')).body.version;
  const variants: [string, Servers, RegExp][] = [
    [
      'a server name with __',
      { demo: { url: demo.url }, bad__name: { url: demo.url } },
      /must not contain '__'/,
    ],
    ['a URL that is not http', { demo: { url: 'ftp://127.0.0.1/mcp' } }, /must be http or https, not ftp:/],
  ];
  for (const [name, servers, message] of variants) {
    const refused = await reload(gw, withServers(gw, servers));
    t.equal(refused.status, 422, `${name}: refused`);
    t.equal(refused.body.error?.code, 'config_invalid', name);
    t.match(refused.body.error?.message, message, `${name}: the message says what is wrong`);
    t.match(refused.body.error?.message, /mcp\.servers/, `${name}: the message names the section`);
    t.equal(
      (await gw.admin('GET', '/admin/config')).body.version,
      version,
      `${name}: the version is unchanged`,
    );
    t.strictSame(await toolNames(client), DEMO_TOOLS, `${name}: the running server is still listed`);
    const sum = await client.callTool({ name: 'demo__add', arguments: { a: 4, b: 5 } });
    t.strictSame(sum.content, [{ type: 'text', text: '9' }], `${name}: and still answers`);
  }
});
