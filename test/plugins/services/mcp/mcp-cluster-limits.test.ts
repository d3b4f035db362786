/**
 * One MCP session served by two real gateway processes that share GATEWAY_KEY_SECRET (which seals the
 * session id) and a Redis (which counts the key's requests): the session opened on one instance works on
 * the other, and every POST /mcp through either counts against the key's one limit, initialize and the
 * `initialized` notification included.
 */
import t from 'tap';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startRedisCluster } from '../../../helpers/cluster';
import { isError } from '../../../helpers/errors';
import { postJson } from '../../../helpers/http';
import { mcpSession } from '../../../helpers/mcp-client';
import { startMcpServer } from '../../../helpers/mcp-server';
import { until } from '../../../helpers/wait';

/** The key's requests per minute: the window (a minute) is far longer than the test, so none leave it. */
const LIMIT = 6;

/** One HTTP exchange a client made, as it saw it. */
interface Exchange {
  readonly via: string;
  readonly method: string;
  /** The JSON-RPC method of a POST's message. */
  readonly rpc: string | undefined;
  readonly status: number;
  readonly remaining: string | null;
}

/** A fetch that notes each exchange through the instance `via`. */
function noting(via: string, log: Exchange[]): FetchLike {
  return async (url, init) => {
    const res = await fetch(url, init);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    log.push({
      via,
      method: init?.method ?? 'GET',
      rpc: body?.method,
      status: res.status,
      remaining: res.headers.get('x-ratelimit-remaining-requests'),
    });
    return res;
  };
}

t.test('a session opened on one instance is served by another, under one shared limit', async (t) => {
  const demo = await startMcpServer(t);
  const cluster = await startRedisCluster(t, {
    instances: 2,
    rateLimit: { backend: 'redis' },
    keyLimits: { rate_limit_rpm: LIMIT },
    adjust: (doc) => {
      doc.mcp = { servers: { demo: { url: demo.url } } };
    },
  });
  const [urlA, urlB] = cluster.urls as [string, string];
  const log: Exchange[] = [];
  const onA = await mcpSession(t, urlA, cluster.key, { fetch: noting('A', log) });
  const sessionId = onA.transport.sessionId!;
  const onB = await mcpSession(t, urlB, cluster.key, {
    fetch: noting('B', log),
    sessionId,
    protocolVersion: onA.transport.protocolVersion!,
  });
  const a = onA.client;
  const b = onB.client;

  // Alternating instances within the one session; each answer is the server's.
  const listedOnB = await b.listTools();
  t.ok(
    listedOnB.tools.some((tool) => tool.name === 'demo__add'),
    'B lists the session opened on A',
  );
  t.strictSame((await a.callTool({ name: 'demo__add', arguments: { a: 1, b: 2 } })).content, [
    { type: 'text', text: '3' },
  ]);
  t.strictSame((await b.callTool({ name: 'demo__add', arguments: { a: 3, b: 4 } })).content, [
    { type: 'text', text: '7' },
  ]);
  t.ok((await a.listTools()).tools.length > 0, 'A lists again');

  // That was the limit's sixth request: the seventh is refused, through either instance.
  const refused = await b.callTool({ name: 'demo__add', arguments: { a: 5, b: 6 } }).catch((e: unknown) => e);
  t.ok(refused instanceof StreamableHTTPError, 'the SDK reports the HTTP refusal');
  t.equal((refused as StreamableHTTPError).code, 429);

  const posts = log.filter((e) => e.method === 'POST').map(({ method: _post, ...exchange }) => exchange);
  t.strictSame(
    posts,
    [
      { via: 'A', rpc: 'initialize', status: 200, remaining: '5' },
      { via: 'A', rpc: 'notifications/initialized', status: 202, remaining: '4' },
      { via: 'B', rpc: 'tools/list', status: 200, remaining: '3' },
      { via: 'A', rpc: 'tools/call', status: 200, remaining: '2' },
      { via: 'B', rpc: 'tools/call', status: 200, remaining: '1' },
      { via: 'A', rpc: 'tools/list', status: 200, remaining: '0' },
      { via: 'B', rpc: 'tools/call', status: 429, remaining: '0' },
    ],
    'every POST counted once, across both instances',
  );
  // The client's server-to-client stream (a GET after `initialized`) stays open beside its calls: the
  // limits neither count it nor hold a slot for it.
  const gets = await until(
    () => log.filter((e) => e.method === 'GET'),
    (seen) => seen.length === 1,
    { what: "the client's GET for a stream" },
  );
  t.match(gets, [{ via: 'A', status: 200, remaining: undefined }]);

  const raw = await postJson(`${urlA}/mcp`, { jsonrpc: '2.0', id: 99, method: 'tools/list' }, cluster.key, {
    accept: 'application/json, text/event-stream',
    'mcp-session-id': sessionId,
  });
  isError(t, raw, 429, 'rate_limited', "this API key's rate limit");
  t.match(raw.headers.get('retry-after'), /^\d+$/, 'with Retry-After in whole seconds');
  t.strictSame(demo.ran, ['add', 'add'], 'refused calls never reached the server');

  const other = await postJson(
    `${urlB}/mcp`,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'probe', version: '1' },
      },
    },
    cluster.probeKey,
    { accept: 'application/json, text/event-stream' },
  );
  t.equal(other.status, 200, "another key's requests are not counted against it");
});
