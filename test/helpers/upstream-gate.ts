/**
 * A gate between a gateway and its simulator, for tests about calls under way: requests pass through to
 * the simulator unchanged, except those the test holds (by the request id the gateway sends upstream),
 * which wait at the gate until the test releases them. A call is then "under way" for exactly as long
 * as the test needs, whatever the machine's speed, instead of for a simulated latency that a stalled
 * event loop can outlast.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createProxyServer } from 'http-proxy-3';
import { pointUpstreamsAt, type ConfigDoc, type Teardown } from './gateway';

export interface UpstreamGate {
  /** `http://127.0.0.1:<port>`: where the gateway's upstreams point. */
  readonly url: string;
  /** The request ids waiting at the gate now, in the order they arrived. */
  readonly waiting: readonly string[];
  /** Points every upstream of `doc` at the gate, which passes requests on to `simUrl`. */
  between(doc: ConfigDoc, simUrl: string): void;
  /** From now on, holds each request whose `x-request-id` `holds` accepts, until `release`. */
  hold(holds: (requestId: string) => boolean): void;
  /** Lets every held request through, and holds no more. */
  release(): void;
}

export async function upstreamGate(t: Teardown): Promise<UpstreamGate> {
  let target = '';
  let holds: (requestId: string) => boolean = () => false;
  const waiting: string[] = [];
  let opened: () => void = () => undefined;
  let open = Promise.resolve();

  // http-proxy-3 passes requests on unchanged and ends the simulator's request when the gateway gives
  // up on a call; an exchange that failed anyway is cut on the gateway's side too.
  const proxy = createProxyServer({ changeOrigin: true });
  proxy.on('error', (_err, _req, res: ServerResponse | Socket) => res.destroy());

  const server = createServer((req, res) => {
    const id = req.headers['x-request-id'];
    if (typeof id !== 'string' || !holds(id)) return proxy.web(req, res, { target });
    // Held: the body waits unread in the socket until the request goes on.
    waiting.push(id);
    void open.then(() => {
      waiting.splice(waiting.indexOf(id), 1);
      proxy.web(req, res, { target });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    opened();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    waiting,
    between(doc, simUrl) {
      target = simUrl;
      pointUpstreamsAt(doc, url);
    },
    hold(accepts) {
      holds = accepts;
      open = new Promise((resolve) => (opened = resolve));
    },
    release() {
      holds = () => false;
      opened();
    },
  };
}
