/**
 * A client's cancellation that a balancer sends to another instance than the one relaying the call: the
 * instances share Redis, and the call stops at its server all the same.
 */
import t from 'tap';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startRedisCluster } from '../../../helpers/cluster';
import { mcpSession } from '../../../helpers/mcp-client';
import { startMcpServer } from '../../../helpers/mcp-server';
import { eventually, until } from '../../../helpers/wait';

t.test('a cancellation reaching another instance stops the call', async (t) => {
  const demo = await startMcpServer(t);
  const cluster = await startRedisCluster(t, {
    instances: 2,
    rateLimit: {},
    adjust: (doc) => {
      doc.mcp = { servers: { demo: { url: demo.url } } };
    },
  });
  const [urlA, urlB] = cluster.urls as [string, string];
  const callIds: (string | number)[] = [];
  const noting: FetchLike = (url, init) => {
    const body =
      typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; id?: number }) : {};
    if (body.method === 'tools/call' && body.id !== undefined) callIds.push(body.id);
    return fetch(url, init);
  };
  const onA = await mcpSession(t, urlA, cluster.key, { fetch: noting });
  const sessionId = onA.transport.sessionId!;
  const call = onA.client
    .callTool({ name: 'demo__slow', arguments: { steps: 500, delay_ms: 20 } }, undefined, {
      onprogress: () => undefined,
      timeout: 60_000,
    })
    .catch((e: unknown) => e);
  await until(
    () => demo.slowSteps.length === 0 && callIds.length === 1,
    (ready) => ready,
  );
  // The server is working: let it report a step, then cancel through B.
  await eventually(() => demo.methods.includes('tools/call'));
  const cancel = await fetch(`${urlB}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${cluster.key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': onA.transport.protocolVersion!,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: callIds[0], reason: 'the user gave up' },
    }),
  });
  t.equal(cancel.status, 202, 'B takes the notification');
  const ended = await call;
  t.ok(ended instanceof McpError, 'the call ends with an error');
  await eventually(() => demo.slowSteps.length === 1);
  t.ok(demo.slowSteps[0]! < 500, `the server stopped early (after ${demo.slowSteps[0]} steps)`);
});
