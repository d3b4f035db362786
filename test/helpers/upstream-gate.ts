/**
 * A gate between a gateway and its simulator, for tests about calls under way: requests pass through to
 * the simulator unchanged, except those the test holds (by the request id the gateway sends upstream),
 * which wait at the gate until the test releases them. A call is then "under way" for exactly as long
 * as the test needs, whatever the machine's speed, instead of for a simulated latency that a stalled
 * event loop can outlast.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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

  const pass = (req: IncomingMessage, body: Buffer, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', target);
    const onward = request(url, { method: req.method, headers: { ...req.headers, host: url.host } });
    onward.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    onward.on('error', () => res.destroy());
    res.on('close', () => onward.destroy()); // the gateway gave up: so does the simulator's request
    onward.end(body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const id = req.headers['x-request-id'];
      if (typeof id !== 'string' || !holds(id)) return pass(req, body, res);
      waiting.push(id);
      void open.then(() => {
        waiting.splice(waiting.indexOf(id), 1);
        pass(req, body, res);
      });
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
