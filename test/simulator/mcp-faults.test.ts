/**
 * The simulator's faults on its MCP server: set as for any path (`path_prefix: '/mcp'`), they make the
 * SDK's client meet an HTTP error status, a body that is not MCP, a reset connection or a late answer,
 * and then, once spent, the server answers again. `method: 'POST'` keeps them off the client's GET stream.
 */
import t from 'tap';
import { startSimulator } from '../../simulator/server';
import { connectMcp, firstText, mcpRequests, untilStreamAsked } from './mcp-client';

void t.test('faults on /mcp', async (t) => {
  const sim = await startSimulator();
  const { client, transport } = await connectMcp(sim);
  t.teardown(async () => {
    await client.close(); // before the simulator: it would try to reconnect its stream
    await sim.close();
  });
  t.afterEach(() => void sim.faults.clear());
  const add = () => client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
  const POSTS = { path_prefix: '/mcp', method: 'POST' };

  await t.test('an HTTP error status, with a JSON-RPC error body, once', async (t) => {
    sim.faults.add({ match: POSTS, fault: { status: 503 }, times: 1 });
    await t.rejects(add(), { code: 503, message: /"jsonrpc":"2.0".*"code":-32603/ });
    const refused = mcpRequests(sim).at(-1);
    t.match(refused, { method: 'POST', status: 503, body: { method: 'tools/call' } });
    t.equal(firstText(await add()), '42', 'spent: the server answers again');
  });

  await t.test('a body that is not MCP', async (t) => {
    sim.faults.add({ match: POSTS, fault: { reply: { body: 'this is not JSON-RPC' } }, times: 1 });
    await t.rejects(add());
    sim.faults.add({
      match: POSTS,
      fault: { reply: { content_type: 'text/html', body: '<html>gateway timeout</html>' } },
      times: 1,
    });
    await t.rejects(add(), { message: /content type/i });
    t.equal(firstText(await add()), '42');
  });

  await t.test('a connection reset before any header', async (t) => {
    sim.faults.add({ match: POSTS, fault: { reset: true }, times: 1 });
    await t.rejects(add());
    t.match(mcpRequests(sim).at(-1), { body: { method: 'tools/call' }, status: null, aborted: true });
    t.equal(firstText(await add()), '42', 'a new connection is answered');
  });

  await t.test('a late answer, and a late error', async (t) => {
    sim.faults.add({ match: POSTS, fault: { delay_ms: 300 }, times: 1 });
    const started = Date.now();
    t.equal(firstText(await add()), '42');
    // "Not before": the delay is the subject, so the elapsed time is what is checked.
    t.ok(Date.now() - started >= 300, `answered after ${Date.now() - started} ms`);
    sim.faults.add({ match: POSTS, fault: { delay_ms: 200, status: 502 }, times: 1 });
    const again = Date.now();
    await t.rejects(add(), { code: 502 });
    t.ok(Date.now() - again >= 200);
  });

  await t.test("the client's GET stream is not met by a fault for POSTs", async (t) => {
    await untilStreamAsked(sim, transport.sessionId);
    const gets = mcpRequests(sim).filter((e) => e.method === 'GET').length;
    sim.faults.add({ match: POSTS, fault: { status: 500 }, times: 1 });
    const other = await connectMcp(sim).catch((e: unknown) => e);
    t.match(other, { code: 500 }, 'the initialize met it');
    t.equal(mcpRequests(sim).filter((e) => e.method === 'GET').length, gets, 'no stream was opened');
    t.strictSame(sim.faults.all(), [], 'spent');
  });

  await t.test("a fault for DELETE fails the session's end; a retry ends it", async (t) => {
    const other = await connectMcp(sim);
    sim.faults.add({ match: { path_prefix: '/mcp', method: 'delete' }, fault: { status: 500 }, times: 1 });
    await t.rejects(other.transport.terminateSession(), { code: 500 });
    t.ok(sim.mcp.ids().includes(other.transport.sessionId!), 'the session stays open');
    await other.transport.terminateSession();
    t.notOk(sim.mcp.ids().includes(other.transport.sessionId ?? ''));
    await other.client.close();
  });
});
