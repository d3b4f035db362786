/**
 * An upstream's keep-alive agent: a call goes out on the socket freed last, so idle sockets age out at the
 * upstream instead of each being kept barely alive, and a call rarely meets one the upstream has closed.
 */
import t from 'tap';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { upstreamAgent } from '../../../core/upstream/upstream';
import { upstreamOptions } from '../../../core/upstream/upstream-options';

t.test('a call reuses the socket that was freed last', async (t) => {
  const held = new Map<string, ServerResponse>();
  let arrived: (() => void) | undefined;
  const server = createServer((req, res) => {
    held.set(req.url ?? '', res);
    arrived?.();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = upstreamAgent(upstreamOptions.parse({ plugin: 'any', base_url: base }));
  t.teardown(() => {
    agent.destroy();
    server.closeAllConnections();
    server.close();
  });

  /** Sends a call and resolves, once its answer is read, with the local port of the socket it used. */
  const call = (path: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request(`${base}${path}`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(req.socket?.localPort ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
  const bothArrived = new Promise<void>((resolve) => {
    arrived = () => {
      if (held.size === 2) resolve();
    };
  });

  // Two calls at once open two sockets; they are answered, and so freed, first /a then /b.
  const [a, b] = [call('/a'), call('/b')];
  await bothArrived;
  held.get('/a')!.end('a');
  const portA = await a;
  held.get('/b')!.end('b');
  const portB = await b;
  t.not(portA, portB, 'two sockets were open');

  arrived = () => held.get('/c')?.end('c');
  t.equal(await call('/c'), portB, 'the next call goes out on the socket freed last');
});
