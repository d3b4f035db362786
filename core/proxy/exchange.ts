/**
 * One request forwarded to one upstream, from the first byte sent to the last byte returned. It owns the
 * upstream timeouts (connect, response headers), maps transport failures to 502/504, and hands a
 * successful response to the JSON path (usage read, body passed on) or to the stream relay.
 *
 * A failure another upstream could mend (no connection, no response headers in time, a 5xx or a 429)
 * is not written to the client: the exchange resolves with it, and the caller retries elsewhere or
 * delivers it (deliverFailure) as the client would have had it. Nothing else is ever retried.
 */
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isJsonObject, type JsonObject } from '../base/json';
import type { AttemptCause, AttemptTrace } from '../request/request-trace';
import type { ServedRequest } from '../request/served-request';
import type { ModelApi } from '../contracts/api';
import type { UpstreamRequest } from '../contracts/upstream';
import { Errors, sendError, type GatewayError } from '../base/errors';
import { connectDeadline } from '../upstream/connect-deadline';
import type { Upstream } from '../upstream/upstream';
import { clientResponseHeaders, upstreamRequestHeaders } from './headers';
import type { ProxiedRequest, ProxyServers } from './proxy-servers';
import { SseReader } from '../base/sse';
import type { Usage } from '../contracts/usage';
import { topLevelMember } from './top-level-member';
import { clientErrorBody } from './error-body';
import { StreamRelay } from './stream-relay';
import type { AnswerPhases } from './answer-phases';
import { ClientAnswer, writeBody } from './client-answer';

/** Why a translating family's 2xx answer is refused (Errors.upstreamBadAnswer). */
const UNTRANSLATABLE = 'a body that is not a JSON object, which its family cannot translate';

export interface ExchangeSettings {
  /** The client's API: its stream frames, and what a trace records of its calls. */
  readonly api: ModelApi;
  /** The stages' response and events phases, which every answer passes. */
  readonly phases: AnswerPhases;
  readonly onStream: (relay: StreamRelay, open: boolean) => void;
}

/**
 * A failed attempt of which nothing reached the client: a gateway error (502/504), or the upstream's
 * 5xx/429 answer, read whole.
 */
export type AttemptFailure =
  | { readonly error: GatewayError; readonly reason: string }
  | {
      readonly error?: undefined;
      readonly reason: string;
      readonly status: number;
      readonly headers: Record<string, unknown>;
      readonly body: Buffer;
      /** The body parsed, when the family's reader parsed it. */
      readonly parsed?: JsonObject;
    };

/**
 * How an attempt ended: `delivered` (a response, good or bad, went to the client), `abandoned` (the
 * client left before any), or a failure the caller must deliver or retry.
 */
export type AttemptResult = 'delivered' | 'abandoned' | AttemptFailure;

/**
 * The reason of a reset on a kept-alive socket before any answer: the upstream closed the idle
 * connection as the request went out, so it never read the request (Node's documented case for
 * `request.reusedSocket`). The same request is sent again at once on a new connection.
 */
export const STALE_CONNECTION = 'stale keep-alive connection';

function failureReason(err: NodeJS.ErrnoException, proxyReq: ClientRequest | undefined): string {
  return proxyReq?.reusedSocket && err.code === 'ECONNRESET' ? STALE_CONNECTION : 'connect error';
}

/** Whether an attempt failed only because its kept-alive connection had been closed (see STALE_CONNECTION). */
export const isStaleConnection = (result: AttemptResult): boolean =>
  typeof result !== 'string' && result.reason === STALE_CONNECTION;

/** Whether an upstream status is a failure to retry and to count against the upstream (Envoy's retriable). */
export const isFailureStatus = (status: number): boolean => status >= 500 || status === 429;

/**
 * Writes a failure as the client gets it when no retry mends it: exactly what it would have had without
 * retries. An upstream's answer passes the stages' response phase first; the gateway's own error does not.
 */
export function deliverFailure(
  ctx: ServedRequest,
  failure: AttemptFailure,
  phases: AnswerPhases,
): Promise<void> {
  if (failure.error) {
    ctx.status = failure.error.status;
    ctx.outcome = 'upstream_error';
    ctx.observed.errorCode = failure.error.code;
    sendError(ctx.res, failure.error, ctx.requestId, ctx.replyHeaders);
    return Promise.resolve();
  }
  const answer = new ClientAnswer(
    failure.status,
    failure.headers as Record<string, string>,
    failure.body,
    failure.parsed,
  );
  // A stage that throws becomes a rejection, which the callers handle.
  return (async () => phases.deliver(ctx, answer))();
}

export class Exchange implements ProxiedRequest {
  private proxyReq: ClientRequest | undefined;
  private timer: NodeJS.Timeout | undefined;
  private responded = false;
  private finished = false;
  private relay: StreamRelay | undefined;
  private done: (result: AttemptResult) => void = () => undefined;
  private broke: (e: unknown) => void = () => undefined;
  /** What a stage's response phase threw: the exchange ends with it, for the server's error boundary. */
  private thrown: unknown;
  /** The client's headers, which `run` replaces with the upstream's (http-proxy-3 sends `req.headers`). */
  private clientHeaders: IncomingHttpHeaders = {};
  /** When the request went upstream, for the request's upstream time (Observed). */
  private sentAt = 0;
  /** The upstream's status, once its response headers came. */
  private upstreamStatus = 0;
  /** This attempt's span, when the request is traced. */
  private span: AttemptTrace | undefined;
  /** The client's JSON body as parsed to read its usage, when it was parsed whole. */
  private parsed: JsonObject | undefined;

  constructor(
    private readonly ctx: ServedRequest,
    private readonly upstream: Upstream,
    private readonly request: UpstreamRequest,
    private readonly settings: ExchangeSettings,
    private readonly why: AttemptCause,
  ) {}

  /**
   * Sends the request; calls `done` when the client's response is complete or the client is gone, or with
   * the failure when nothing was sent to the client (see AttemptFailure), and `broke` with what a stage
   * threw. Callbacks, not a promise: the caller's one promise covers its resends too.
   */
  run(servers: ProxyServers, done: (result: AttemptResult) => void, broke: (e: unknown) => void): void {
    const { ctx, request, upstream } = this;
    // Model-routed requests alone are proxied, so a traced one has its target.
    if (ctx.trace && ctx.target)
      this.span = ctx.trace.attempt(ctx.target, this.settings.api, request.url, this.why);
    // http-proxy-3 copies the incoming headers; give it the ones the upstream may see.
    this.clientHeaders = ctx.req.headers;
    ctx.req.headers = upstreamRequestHeaders(
      ctx.req.headers,
      request.url.host,
      request.headers,
      request.body.length,
      ctx.requestId,
      ctx.forwardedFor,
      this.span?.traceparent,
    );
    this.done = done;
    this.broke = broke;
    this.sentAt = performance.now();
    this.timer = setTimeout(
      () => this.fail(Errors.upstreamTimeout(upstream.name, 'response headers'), 'timeout'),
      upstream.timeouts.responseMs,
    );
    ctx.res.once('close', () => this.onClientClose());
    servers.send(upstream.agent, request.url, ctx.req, ctx.res, request.body, this, (err) =>
      this.onProxyError(err),
    );
  }

  /** Called with the outgoing request once it has a socket: starts the connect timeout if it must connect. */
  attach(proxyReq: ClientRequest, socket: Socket): void {
    // A request that waited for a free socket past its timeout was already answered: never send it.
    if (this.finished) {
      proxyReq.destroy();
      return;
    }
    this.proxyReq = proxyReq;
    proxyReq.once('response', (upstreamRes: IncomingMessage) => this.onResponse(upstreamRes));
    const timer = connectDeadline(socket, this.upstream.timeouts.connectMs, () =>
      this.fail(Errors.upstreamTimeout(this.upstream.name, 'connect'), 'connect timeout'),
    );
    if (timer) proxyReq.once('close', () => clearTimeout(timer));
  }

  private onResponse(upstreamRes: IncomingMessage): void {
    if (this.finished) {
      upstreamRes.destroy();
      return;
    }
    clearTimeout(this.timer);
    this.responded = true;
    const status = upstreamRes.statusCode ?? 502;
    this.upstreamStatus = status;
    const headers = clientResponseHeaders(upstreamRes.headers, this.ctx.requestId);
    if (this.request.responseHeaders) Object.assign(headers, this.request.responseHeaders);
    if (this.ctx.replyHeaders) Object.assign(headers, this.ctx.replyHeaders);
    const isStream =
      status < 300 && String(upstreamRes.headers['content-type']).includes('text/event-stream');
    if (!isStream) return this.relayBody(upstreamRes, status, headers);
    const { api, phases, onStream } = this.settings;
    // A translating family's stream, or one a stage watches, is relayed event by event; any other piped.
    if (!this.request.reader.translates && !phases.readsEvents(this.ctx))
      return this.pipeRaw(upstreamRes, status, headers);
    const end = (r: StreamRelay): void => {
      onStream(r, false);
      this.finish();
    };
    const idle = (ms: number): GatewayError => Errors.streamIdle(this.upstream.name, ms);
    const { reader } = this.request;
    this.relay = new StreamRelay(this.ctx, upstreamRes, reader, api.dialect, phases, end, idle, this.span);
    onStream(this.relay, true);
    this.relay.start(headers, () => Errors.streamCut(this.upstream.name));
  }

  onProxyError(err: Error): void {
    if (this.finished || this.responded) return; // after the response began, the response's own events decide
    this.fail(Errors.upstreamUnreachable(this.upstream.name, err), failureReason(err, this.proxyReq));
  }

  /**
   * Ends the exchange with a gateway error (502/504) before any response byte reached the client. With
   * a `reason` (no response headers came) it is a failure the caller may retry, and not written here.
   */
  private fail(error: GatewayError, reason?: string): void {
    if (this.finished) return;
    this.proxyReq?.destroy();
    if (reason !== undefined) return this.finish({ error, reason });
    void deliverFailure(this.ctx, { error, reason: 'broken response' }, this.settings.phases);
    this.finish();
  }

  /** A non-stream response: usage is read from a 2xx JSON body, error bodies are never billed. */
  private relayBody(upstreamRes: IncomingMessage, status: number, headers: Record<string, unknown>): void {
    const chunks: Buffer[] = [];
    upstreamRes.on('data', (chunk: Buffer) => chunks.push(chunk));
    upstreamRes.on('error', () => undefined);
    upstreamRes.on('close', () => {
      if (!upstreamRes.complete) this.fail(Errors.upstreamResponseBroken(this.upstream.name));
    });
    upstreamRes.on('end', () => {
      const body = this.clientBody(status, Buffer.concat(chunks), headers);
      if (body === undefined) return this.fail(Errors.upstreamBadAnswer(this.upstream.name, UNTRANSLATABLE));
      const { parsed } = this;
      if (isFailureStatus(status))
        return this.finish({ reason: `status ${status}`, status, headers, body, parsed });
      if (status < 300) this.span?.answered(body.toString('utf8'));
      // Without a stage reading it, the answer is written at once: no promise, no ClientAnswer.
      if (!this.settings.phases.readsJson(this.ctx)) {
        writeBody(this.ctx, status, headers as Record<string, string>, body);
        return this.finish();
      }
      const answer = new ClientAnswer(status, headers as Record<string, string>, body, parsed);
      let delivered: void | Promise<void>;
      try {
        delivered = this.settings.phases.deliver(this.ctx, answer);
      } catch (e) {
        return this.finishWith(e);
      }
      // Stages whose response phase is synchronous cost no promise.
      if (!delivered) return this.finish();
      delivered.then(
        () => this.finish(),
        (e: unknown) => this.finishWith(e),
      );
    });
  }

  /**
   * The body the client gets: a 2xx one metered (and translated), an error one in a shape its SDK reads;
   * undefined for a 2xx body a translating family cannot read, which must not reach the client as it is.
   */
  private clientBody(status: number, received: Buffer, headers: Record<string, unknown>): Buffer | undefined {
    if (status < 300) return this.readUsage(received);
    return status >= 400 ? clientErrorBody(this.request.reader, status, received, headers) : received;
  }

  private readUsage(body: Buffer): Buffer | undefined {
    const text = body.toString('utf8');
    const usage = this.usageFromMember(text);
    if (usage) {
      this.ctx.usage = usage;
      return body;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    // Not a JSON object: passed on as is with nothing to bill, unless the client needs it translated.
    if (!isJsonObject(parsed)) return this.request.reader.translates ? undefined : body;
    const read = this.request.reader.json(parsed);
    this.ctx.usage = read.usage;
    // Kept for the stages' response phase, which then need not parse the body again.
    this.parsed = read.replace ?? parsed;
    return read.replace ? Buffer.from(JSON.stringify(read.replace)) : body;
  }

  /** Usage read from the body's `usage` member alone, when the reader can (see ResponseReader.usageMember). */
  private usageFromMember(text: string): Usage | undefined {
    const { reader } = this.request;
    // A translating reader has no shortcut: its vendor's body never reaches the client.
    if (reader.translates || !reader.usageMember) return undefined;
    const member = topLevelMember(text, 'usage');
    if (member === undefined) return undefined;
    try {
      const usage: unknown = JSON.parse(member);
      return isJsonObject(usage) ? reader.usageMember(usage) : undefined;
    } catch {
      return undefined; // the whole body is parsed, and judged, as before
    }
  }

  /**
   * Without the relay stage: the upstream's bytes go to the client untouched, and a copy is read only to
   * meter what was delivered. A cut still ends with the API's error frame.
   */
  private pipeRaw(upstreamRes: IncomingMessage, status: number, headers: Record<string, unknown>): void {
    const { ctx, request } = this;
    ctx.status = status;
    ctx.res.writeHead(status, headers as Record<string, string>);
    const { span } = this;
    const meter = new SseReader((ev) => {
      request.reader.event(ev);
      span?.answered(ev.data);
    });
    upstreamRes.on('data', (chunk: Buffer) => {
      if (ctx.observed.firstByteAt === 0) ctx.observed.firstByteAt = performance.now();
      meter.push(chunk);
    });
    upstreamRes.pipe(ctx.res, { end: false });
    upstreamRes.on('error', () => undefined);
    upstreamRes.on('end', () => {
      meter.end();
      if (request.reader.failed) ctx.outcome = 'vendor_error';
      ctx.res.end();
    });
    upstreamRes.on('close', () => {
      if (!upstreamRes.complete && !ctx.res.destroyed) {
        ctx.outcome = request.reader.failed ? 'vendor_error' : 'upstream_cut';
        const cut = Errors.streamCut(this.upstream.name);
        ctx.res.end(request.reader.errorFrame?.(cut) ?? this.settings.api.dialect.errorFrame(cut));
      }
      ctx.usage = request.reader.usage();
      this.finish();
    });
  }

  /**
   * The client went away before its response was complete. The upstream request is aborted, but the
   * upstream may already have spent the prompt: the record gets the reader's estimate (the prompt, and
   * whatever output was relayed), marked estimated, never a silent zero.
   */
  private onClientClose(): void {
    if (this.finished || this.ctx.res.writableFinished) return;
    if (this.relay) this.relay.abandon();
    else {
      this.ctx.outcome = 'client_closed';
      this.ctx.usage = { ...this.request.reader.usage(), estimated: true };
      this.finish('abandoned');
    }
  }

  /** Why a delivered answer failed anyway: the upstream's error status, or its stream ended badly. */
  private brokenBy(): string | undefined {
    if (this.upstreamStatus >= 400) return `status ${this.upstreamStatus}`;
    const { outcome } = this.ctx;
    return outcome === 'ok' || outcome === 'client_closed' ? undefined : outcome;
  }

  private finish(result: AttemptResult = 'delivered'): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.timer);
    this.ctx.observed.upstreamMs += performance.now() - this.sentAt;
    const failed = typeof result !== 'string';
    // A failure nothing was sent for leaves the request as the client sent it, to send again or elsewhere.
    if (failed) this.ctx.req.headers = this.clientHeaders;
    this.span?.end(this.upstreamStatus, failed ? result.reason : this.brokenBy(), this.ctx.usage);
    if (this.thrown === undefined) this.done(result);
    else this.broke(this.thrown);
  }

  /** A stage's response phase failed: the answer was not written, and the error boundary writes the error. */
  private finishWith(e: unknown): void {
    this.thrown = e ?? new Error('a response phase failed');
    this.finish();
  }
}
