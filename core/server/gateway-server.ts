/**
 * The client-facing node:http server: request id, route match, header-count limit, the pipeline, and the
 * one error boundary that turns anything thrown into the contract's error body. Also drains on shutdown.
 */
import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Server as NetServer, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { ServerConfig } from '../../config/schema';
import { RequestContext } from './context';
import type { ServedRequest } from '../request/served-request';
import { Errors, GatewayError, sendError, toGatewayError } from '../base/errors';
import type { LiveRouting, SnapshotLease } from '../reload/live-routing';
import type { RequestBodies } from '../http/body';
import { pathOf } from '../observability/access-log';
import { errorOutcome, settledOutcome } from '../observability/outcome';
import type { RequestObserver } from '../observability/request-observer';
import { wasReported } from '../observability/upstream-failures';
import type { HealthEndpoints } from '../http/health-endpoints';
import { ClientAddresses, peerAddress } from '../http/client-address';
import { proxyProtocolListener } from '../http/proxy-protocol';
import { requestIdFor } from '../http/request-id';
import type { RequestTracer } from '../observability/tracing/request-tracer';

/** Errors Node's HTTP parser raises before a request exists, with the contract's error for each. */
const CLIENT_ERRORS: Readonly<Record<string, () => GatewayError>> = {
  ERR_HTTP_REQUEST_TIMEOUT: Errors.headersTimeout,
  HPE_HEADER_OVERFLOW: Errors.headersTooLarge,
};

const REQUEST_ID_LINE = /\r\nx-request-id:[ \t]*([^\r\n]*?)[ \t]*\r\n/i;

const REQUEST_LINE = /^([A-Z]{1,20}) (\S{1,4096})/;

/**
 * What the bytes Node could not parse say of the request: the client's `x-request-id`, so even this
 * answer echoes it, and its method and path for the access log.
 */
function presented(raw: Buffer | undefined): {
  id: string | undefined;
  method: string | undefined;
  path: string;
} {
  const text = raw?.toString('latin1') ?? '';
  const line = REQUEST_LINE.exec(text);
  return { id: REQUEST_ID_LINE.exec(text)?.[1], method: line?.[1], path: pathOf(line?.[2]) };
}

/**
 * Writes `error` as a whole HTTP response straight to a socket Node's server no longer answers on (a
 * parse error, a CONNECT), and closes it.
 */
function endSocket(socket: Duplex, error: GatewayError, requestId: string): number {
  const body = error.body();
  const extra = Object.entries(error.headers)
    .filter(([name]) => name !== 'connection')
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const answer =
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\n${extra}` +
    `connection: close\r\n\r\n${body}`;
  socket.end(answer);
  return Buffer.byteLength(answer);
}

/** A request answered before the pipeline, as the access log and metrics are told of it. */
interface RefusedRequest {
  readonly requestId: string;
  readonly method: string | undefined;
  readonly path: string;
  readonly client: string;
  readonly error: GatewayError;
  readonly bytesOut: number;
  readonly started: number;
  /** When the request was traced. */
  readonly traceId?: string | undefined;
}

export class GatewayServer {
  readonly server: Server;
  /** What accepts connections: the HTTP server itself, or a PROXY protocol reader in front of it. */
  private readonly listener: NetServer;
  private readonly addresses: ClientAddresses;
  private inFlight = 0;
  private closing = false;
  private drained: (() => void) | undefined;

  constructor(
    /** Each request is routed by the snapshot current when it arrives, to its last byte. */
    private readonly routing: LiveRouting,
    private readonly config: ServerConfig,
    private readonly bodies: RequestBodies,
    private readonly logger: Logger,
    /** Told once of every request answered: metrics, and the access log. */
    private readonly observer: RequestObserver,
    /** `/healthz` and `/readyz`, answered outside the pipeline (and while draining). */
    private readonly health?: HealthEndpoints,
    /** Absent when tracing is off. */
    private readonly tracer?: RequestTracer,
  ) {
    this.server = createServer(
      {
        maxHeaderSize: config.max_header_size,
        headersTimeout: config.timeouts.headers,
        requestTimeout: 0, // bodies are timed by the body reader, streams by the relay
        // Node checks header deadlines on this interval (30 s by default); keep it well under the limit.
        connectionsCheckingInterval: Math.max(50, Math.min(1_000, config.timeouts.headers / 4)),
        keepAliveTimeout: 65_000,
        // Node would refuse a request without Host itself, with an empty 400; the handler answers it
        // in the contract's shape instead (and a request whose Host was cut by the header limit gets 431).
        requireHostHeader: false,
      },
      (req, res) => this.handle(req, res),
    );
    // One more than the limit, so an excess is seen (Node would otherwise drop extra headers silently).
    this.server.maxHeadersCount = config.max_headers + 1;
    this.addresses = new ClientAddresses(config);
    this.listener = config.proxy_protocol ? this.proxyProtocolListener() : this.server;
    // Node keeps a socket's peer address on it from its first read. Read then, at different points of
    // a request, sockets took different shapes, and Node's stream code went megamorphic (callgrind):
    // read it as the connection opens, so every socket has one shape.
    this.server.on('connection', (socket: Socket) => void socket.remoteAddress);
    this.server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) =>
      this.rejectClient(err, socket),
    );
    // CONNECT never reaches the request handler: without a listener Node closes the socket unanswered.
    this.server.on('connect', (req: IncomingMessage, socket: Duplex) => {
      const started = performance.now();
      const requestId = requestIdFor(req.headers['x-request-id']);
      const error = this.refusal(req);
      const bytesOut = endSocket(socket, error, requestId);
      this.rejected(this.refusedRequest(req, requestId, error, bytesOut, started));
    });
  }

  listen(host: string, port: number): Promise<number> {
    const listener = this.listener;
    return new Promise((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(port, host, () => {
        listener.off('error', reject);
        const address = listener.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  /** Reads each connection's PROXY header before the HTTP server sees it (http-server-side limits apply after). */
  private proxyProtocolListener(): NetServer {
    const listener = proxyProtocolListener(this.server, {
      headerTimeoutMs: this.config.timeouts.headers,
      trusted: this.addresses.trustTest,
      onRefused: (peer, reason) => this.logger.warn({ peer }, `connection closed: ${reason}`),
    });
    // Node's HTTP server tracks its connections (header deadlines, closing idle ones) from 'listening' on.
    listener.on('listening', () => this.server.emit('listening'));
    return listener;
  }

  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** Stops accepting connections; requests on open keep-alive connections get 503 from now on. */
  stopAccepting(): void {
    if (this.closing) return;
    this.closing = true;
    if (this.listener !== this.server) this.listener.close();
    this.server.close();
    this.server.closeIdleConnections();
  }

  /** Resolves true when no request is in flight, or false once `ms` has passed. */
  async waitIdle(ms: number): Promise<boolean> {
    if (this.inFlight === 0) return true;
    const drained = new Promise<boolean>((resolve) => (this.drained = () => resolve(true)));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    const result = await Promise.race([drained, timeout]);
    clearTimeout(timer);
    return result;
  }

  closeAllConnections(): void {
    this.server.closeAllConnections();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const requestId = requestIdFor(req.headers['x-request-id']);
    if (this.health?.matches(req.url)) {
      this.health.answer(req, res, requestId);
      return;
    }
    const trace = this.tracer?.start(req, started);
    const lease = this.routing.acquire();
    try {
      if (this.closing) throw Errors.shuttingDown();
      if (req.rawHeaders.length / 2 > this.config.max_headers)
        throw Errors.headersTooMany(this.config.max_headers);
      if (req.headers.host === undefined && req.httpVersionMinor >= 1) throw Errors.hostRequired();
      const url = req.url ?? '/';
      const query = url.indexOf('?');
      const match = lease.snapshot.routes.match(req.method ?? 'GET', query < 0 ? url : url.slice(0, query));
      const { handler: endpoint, params } = match;
      const ctx = new RequestContext(
        req,
        res,
        requestId,
        endpoint,
        params,
        started,
        this.bodies,
        this.addresses,
        trace,
        lease.snapshot.pipeline.phases,
      );
      this.run(ctx, lease);
    } catch (e) {
      const error = toGatewayError(e);
      const access = lease.snapshot.config.logging.access;
      this.routing.release(lease);
      this.log(e, error, { requestId, method: req.method, path: pathOf(req.url) }, access);
      const before = req.socket.bytesWritten;
      sendError(res, error, requestId);
      const bytesOut = req.socket.bytesWritten - before;
      const refused = this.refusedRequest(req, requestId, error, bytesOut, started, trace?.traceId);
      trace?.rejected({ requestId, status: error.status, code: error.code, client: refused.client });
      this.rejected(refused, access);
    }
  }

  /**
   * Answers a request Node could not parse (or whose headers were too slow or too large) with the
   * contract's error body, instead of Node's bare status line, then closes the connection.
   */
  private rejectClient(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void {
    const make = CLIENT_ERRORS[err.code ?? ''];
    if (!socket.writable || !(make || err.code?.startsWith('HPE_'))) {
      socket.destroy(); // a reset or a vanished client: nobody to answer, and no request to log
      return;
    }
    const started = performance.now();
    const error = make ? make() : Errors.invalidRequest('malformed HTTP request');
    const { id, method, path } = presented(err.rawPacket);
    const requestId = requestIdFor(id);
    const bytesOut = endSocket(socket, error, requestId);
    // Headers Node could not parse name no client: the connection's peer is all that is known.
    const client = peerAddress(socket as Socket);
    this.rejected({ requestId, method, path, client, error, bytesOut, started });
  }

  /** What is observed of a request Node parsed but the gateway refused before the pipeline. */
  private refusedRequest(
    req: IncomingMessage,
    requestId: string,
    error: GatewayError,
    bytesOut: number,
    started: number,
    traceId?: string,
  ): RefusedRequest {
    const client = this.addresses.of(req);
    return {
      requestId,
      method: req.method,
      path: pathOf(req.url),
      client,
      error,
      bytesOut,
      started,
      traceId,
    };
  }

  /** Observes a request answered before the pipeline, with its access line unless the log is off. */
  private rejected(r: RefusedRequest, access = this.routing.current.config.logging.access): void {
    const { requestId, method, path, client, error, bytesOut, started, traceId } = r;
    const totalMs = performance.now() - started;
    const { status, code } = error;
    this.observer.rejected(
      { requestId, method, path, client, status, code, bytesOut, totalMs, traceId },
      access,
    );
  }

  /**
   * Failures of the gateway (5xx, anything not from the catalog) are errors, except an upstream's, logged
   * once where it failed (core/observability/upstream-failures.ts). A request refused for what the client
   * sent or did (4xx, a client that went away) is the client's event: its access line says so, or, with
   * the access log off, a line at info.
   */
  private log(e: unknown, error: GatewayError, fields: Record<string, unknown>, access: boolean): void {
    if (!(e instanceof GatewayError) || error.status >= 500) {
      if (!wasReported(e)) this.logger.error({ err: e, ...fields }, error.message);
    } else if (!access)
      this.logger.info({ code: error.code, status: error.status, ...fields }, error.message);
  }

  /** What a method no endpoint takes (CONNECT) gets: the route table's 404 or 405 for its target. */
  private refusal(req: IncomingMessage): GatewayError {
    try {
      this.routing.current.routes.match(req.method ?? 'CONNECT', req.url ?? '/');
      return Errors.notFound(req.method ?? 'CONNECT', req.url ?? '/');
    } catch (e) {
      return toGatewayError(e);
    }
  }

  private run(ctx: RequestContext, lease: SnapshotLease): void {
    this.inFlight++;
    // One reaction for both outcomes, where `.catch().finally()` would cost four promises a request.
    void lease.snapshot.pipeline.run(ctx, ctx.endpoint.handle).then(
      () => this.ended(ctx, lease),
      (e: unknown) => {
        try {
          this.fail(ctx, e, lease.snapshot.config.logging.access);
        } finally {
          this.ended(ctx, lease);
        }
      },
    );
  }

  /** After the response, whatever its outcome: the finish phase, the request's observation, its lease. */
  private ended(ctx: RequestContext, lease: SnapshotLease): void {
    const { pipeline, pricing, config } = lease.snapshot;
    ctx.outcome = settledOutcome(ctx);
    pipeline.runFinish(ctx, (stage, e) => this.logger.error({ err: e, stage }, 'finish hook failed'));
    try {
      this.observer.ended(ctx, pricing, config.logging.access, ctx.trace);
    } catch (e) {
      this.logger.error({ err: e, request_id: ctx.requestId }, 'observing a request failed');
    }
    this.routing.release(lease);
    if (--this.inFlight === 0 && this.drained) this.drained();
  }

  /** The error boundary: every failure becomes the contract's error body with the right status. */
  private fail(ctx: ServedRequest, e: unknown, access: boolean): void {
    const error = toGatewayError(e);
    this.log(e, error, { requestId: ctx.requestId, path: ctx.endpoint.path }, access);
    ctx.observed.errorCode = error.code;
    // Nobody reads this answer: the access log and metrics say the client left (status 499).
    const gone = ctx.req.socket.destroyed || error.code === 'client_closed_request';
    ctx.outcome = gone ? 'client_closed' : errorOutcome(error.status);
    ctx.status = error.status;
    if (ctx.res.headersSent) ctx.res.destroy();
    else sendError(ctx.res, error, ctx.requestId, ctx.replyHeaders);
  }
}
