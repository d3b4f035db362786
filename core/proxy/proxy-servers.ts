/**
 * The http-proxy-3 servers client requests go through: one per upstream URL and keep-alive agent, made
 * with everything fixed about the way there (target, agent, how responses are handled). A request's
 * own part, its body, is handed over as `send` says why.
 */
import type { Agent, ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
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

/** One upstream URL's way there: its server, the options that server was made with, and the path. */
interface ProxyRoute {
  readonly server: ProxyServer;
  /** The object the server was made with, which it keeps and copies as each request begins. */
  readonly options: ServerOptions;
  readonly path: string;
}

export class ProxyServers {
  private readonly byAgent = new WeakMap<Agent, WeakMap<URL, ProxyRoute>>();

  /**
   * Sends `req` with `body` to `url` over `agent`; `exchange` is told of the upstream request once it
   * has a socket, `onError` of a failure to reach the upstream.
   *
   * A request brings nothing of its own in http-proxy-3's options: it merges a request's options into
   * its server's with a spread that V8 runs on its slow path, and the object that makes is in dictionary
   * mode, so every read of it afterwards misses its inline cache (about 50k instructions a json request
   * by callgrind, for one option).
   * The body is set on the server's own options for the call instead: web() copies them on the fast path
   * as it begins and has piped the body into the upstream request before it returns, and nothing runs
   * between the two, so the next request never sees this one's body.
   */
  send(
    agent: Agent,
    url: URL,
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    exchange: ProxiedRequest,
    onError: (err: Error) => void,
  ): void {
    const { server, options, path } = this.route(agent, url);
    // http-proxy-3 sends the request's url to the origin (toProxy), and has built the upstream request when web() returns.
    const clientUrl = req.url;
    req.url = path;
    options.buffer = bodySource(body, exchange);
    try {
      server.web(req, res, onError);
    } finally {
      options.buffer = undefined;
      req.url = clientUrl;
    }
  }

  /** The server for `url` over `agent`, made on first use (a plugin keeps one URL object per endpoint). */
  private route(agent: Agent, url: URL): ProxyRoute {
    let byUrl = this.byAgent.get(agent);
    if (!byUrl) this.byAgent.set(agent, (byUrl = new WeakMap()));
    let route = byUrl.get(url);
    if (!route) byUrl.set(url, (route = this.open(agent, url)));
    return route;
  }

  private open(agent: Agent, url: URL): ProxyRoute {
    const { origin, path } = proxyTarget(url);
    // selfHandleResponse: the exchange writes the response (usage read, streams relayed); toProxy: the
    // request's url, which `send` sets to `path`, is sent as it is (see proxy-target.ts). The upstream's
    // host is in the headers the exchange gives (headers.ts). `buffer` is each request's body (`send`).
    const options: ServerOptions = {
      target: origin,
      agent,
      selfHandleResponse: true,
      toProxy: true,
      buffer: undefined,
    };
    const server = createProxyServer(options);
    server.on('proxyReq', (proxyReq, _req, _res, requestOptions, socket) =>
      exchangeOf(requestOptions)?.attach(proxyReq, socket),
    );
    // Errors reach each exchange through the callback it passes to web(); these events need a listener
    // only so that http-proxy-3 does not throw, and the exchange has already ended when they fire.
    server.on('econnreset', () => undefined);
    server.on('error', () => undefined);
    return { server, options, path };
  }
}
