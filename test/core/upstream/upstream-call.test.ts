/**
 * Task calls outside the proxy path: through the upstream's own agent (its `max_sockets` and kept-alive
 * sockets), with its response timeout, and the gateway's errors when the upstream cannot be reached.
 */
import t, { type Test } from 'tap';
import { Agent, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayError } from '../../../core/base/errors';
import { UpstreamCaller } from '../../../core/upstream/upstream-call';
import { refusedUrl } from '../../helpers/ports';

async function serve(
  t: Test,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

// Far beyond what the answers here take, so that a stalled machine cannot turn one into a timeout.
const TIMEOUTS = { connectMs: 5_000, responseMs: 10_000 };

t.test('an answer comes back as it is, over the upstream agent’s kept-alive socket', async (t) => {
  const peers = new Set<number>();
  const { url } = await serve(t, (req, res) => {
    peers.add(req.socket.remotePort ?? 0);
    res.writeHead(req.method === 'POST' ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ method: req.method, path: req.url }));
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const caller = new UpstreamCaller('videoa-main', agent, TIMEOUTS);
  const answers = await Promise.all([
    caller.call({ method: 'GET', url: new URL(`${url}/tasks/1`), headers: {} }),
    caller.call({ method: 'POST', url: new URL(`${url}/tasks`), headers: {}, body: Buffer.from('{}') }),
  ]);
  t.strictSame(
    answers.map((a) => [a.status, a.contentType, JSON.parse(a.body.toString()) as unknown]),
    [
      [200, 'application/json', { method: 'GET', path: '/tasks/1' }],
      [404, 'application/json', { method: 'POST', path: '/tasks' }],
    ],
  );
  t.equal(peers.size, 1, 'both calls took the one socket max_sockets allows, one after the other');
});

t.test('an upstream that does not answer in time is a 504 naming the response', async (t) => {
  const { url } = await serve(t, () => undefined);
  const agent = new Agent({ keepAlive: true });
  t.teardown(() => agent.destroy());
  const caller = new UpstreamCaller('videob-main', agent, { connectMs: 1_000, responseMs: 200 });
  const error = await caller
    .call({ method: 'GET', url: new URL(`${url}/slow`), headers: {} })
    .catch((e: unknown) => e);
  t.ok(error instanceof GatewayError);
  t.match(error, {
    status: 504,
    code: 'upstream_timeout',
    message: /videob-main did not answer in time \(response\)/,
  });
});

t.test('an upstream nobody listens for is a 502', async (t) => {
  const caller = new UpstreamCaller('videoa-main', new Agent(), TIMEOUTS);
  const error = await caller
    .call({ method: 'GET', url: new URL(refusedUrl('/x')), headers: {} })
    .catch((e: unknown) => e);
  t.match(error, { status: 502, code: 'upstream_unreachable', message: /videoa-main could not be reached/ });
});

t.test('an answer cut short is a 502, not a short body', async (t) => {
  const { url } = await serve(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    // Cut once the partial body has left: the client has the headers and some of the body, not all.
    res.write('{"partial":', () => res.socket?.destroy());
  });
  const caller = new UpstreamCaller('videoa-main', new Agent(), TIMEOUTS);
  const error = await caller
    .call({ method: 'GET', url: new URL(`${url}/cut`), headers: {} })
    .catch((e: unknown) => e);
  t.match(error, { status: 502, code: 'upstream_unreachable' });
});
