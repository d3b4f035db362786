/**
 * The http-proxy-3 servers client requests go through: one per upstream URL and keep-alive agent, holding
 * everything fixed about the way there (target, agent, how responses are handled), so that a request
 * brings only its body. http-proxy-3 merges a request's options into its server's with a spread that
 * V8 runs on its slow path, about 5k instructions per option (callgrind); a server's own options are
 * copied on the fast one.
 */
import type { ClientRequest } from 'node:http';
import type { Agent } from 'node:http';
import type { Socket } from 'node:net';
import type { Stream } from 'node:stream';
import { createProxyServer, type ProxyServer, type ServerOptions } from 'http-proxy-3';
import { proxyTarget } from './proxy-target';

/** What a request's `proxyReq` event is handed to: the exchange that sent it. */
export interface ProxiedRequest {
  attach(proxyReq: ClientRequest, socket: Socket): void;
}

/**
 * The already-read body as the one thing http-proxy-3 needs from its `buffer` option, `pipe(dest)`, with
 * the request's exchange riding along for the `proxyReq` event. A single `end(body)` sends headers and
 * body in one write, where a Readable per request costs a stream's machinery and an extra tick (about a
 * tenth of the gateway's throughput in `npm run bench`).
 */
interface BodySource {
  pipe<T extends NodeJS.WritableStream>(dest: T): T;
  readonly exchange: ProxiedRequest | undefined;
}

export function bodySource(body: Buffer, exchange?: ProxiedRequest): Stream {
  const source: BodySource = { pipe: (dest) => (dest.end(body), dest), exchange };
  return source as unknown as Stream;
}

const exchangeOf = (options: ServerOptions): ProxiedRequest | undefined =>
  (options.buffer as unknown as BodySource | undefined)?.exchange;

/** A server of `servers`, and the path the request's url must carry to it. */
export interface ProxyRoute {
  readonly server: ProxyServer;
  readonly path: string;
}

export class ProxyServers {
  private readonly byAgent = new WeakMap<Agent, WeakMap<URL, ProxyRoute>>();

  /** The server for `url` over `agent`, made on first use (a plugin keeps one URL object per endpoint). */
  route(agent: Agent, url: URL): ProxyRoute {
    let byUrl = this.byAgent.get(agent);
    if (!byUrl) this.byAgent.set(agent, (byUrl = new WeakMap()));
    let route = byUrl.get(url);
    if (!route) byUrl.set(url, (route = this.open(agent, url)));
    return route;
  }

  private open(agent: Agent, url: URL): ProxyRoute {
    const { origin, path } = proxyTarget(url);
    // selfHandleResponse: the exchange writes the response (usage read, streams relayed); toProxy: the
    // request's url, which the exchange sets to `path`, is sent as it is (see proxy-target.ts);
    // changeOrigin: the upstream's host is sent, not the gateway's.
    const server = createProxyServer({
      target: origin,
      agent,
      selfHandleResponse: true,
      toProxy: true,
      changeOrigin: true,
    });
    server.on('proxyReq', (proxyReq, _req, _res, options, socket) =>
      exchangeOf(options)?.attach(proxyReq, socket),
    );
    // Errors reach each exchange through the callback it passes to web(); these events need a listener
    // only so that http-proxy-3 does not throw, and the exchange has already ended when they fire.
    server.on('econnreset', () => undefined);
    server.on('error', () => undefined);
    return { server, path };
  }
}
