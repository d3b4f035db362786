/**
 * Relays an upstream SSE response event by event (docs/conventions.md#convention-10): the upstream plugin's
 * reader and the stages' event filters see each whole event, and each upstream read is written on
 * in the same turn of the event loop. An event they leave as it is goes on as the upstream's own bytes (no
 * re-serialising); only an event they change or drop is written anew. A stream that ends before the
 * protocol's own end, or is cut by a stage for silence (StreamControl.timeOut) or by shutdown, ends with
 * the API's error frame. Keep-alive pings and the idle limit are the sse-relay stage's, through StreamControl.
 */
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Outcome } from '../contracts/context';
import type { StreamDialect } from '../contracts/api';
import type { ClientEvents, ResponseReader, StreamSkim } from '../contracts/reader';
import type { StreamControl } from '../contracts/stage';
import type { Usage } from '../contracts/usage';
import type { AttemptTrace } from '../request/request-trace';
import type { ServedRequest } from '../request/served-request';
import { type GatewayError } from '../base/errors';
import { serializeEvent, type SseEvent } from '../base/sse';
import { eventsOf } from '../contracts/client-events';
import type { AnswerPhases } from './answer-phases';
import { FilterChain, isSeveral } from './event-filters';
import { part, SseFrames, type FrameHandler } from './sse-frames';

const isText = (p: Buffer | string): p is string => typeof p === 'string';

export class StreamRelay implements StreamControl {
  /** What the current upstream read makes the client get: the upstream's bytes, or events written anew. */
  private pending: (Buffer | string)[] = [];
  /** The run of unchanged frames not yet added to `pending`: `runBuf[runStart, runEnd)`. */
  private runBuf: Buffer | undefined;
  private runStart = 0;
  private runEnd = 0;
  private readonly frames: SseFrames;
  private lastWrite = Date.now();
  private lastUpstream = Date.now();
  private ended = false;
  /** Whether this turn's writes are being held (holdUntilTurnEnds). */
  private held = false;
  /** The stages' filters of this stream (the events phase), nearest the upstream first. */
  private readonly chain: FilterChain;
  /** Whether any of them reads events. */
  private readonly filtered: boolean;
  /** The events a stage ended the stream with (StreamControl.end), once one did. */
  private final: readonly SseEvent[] | undefined;
  /** Whether an event is going through the reader and the filters now. */
  private filtering = false;

  constructor(
    private readonly ctx: ServedRequest,
    private readonly upstreamRes: IncomingMessage,
    private readonly reader: ResponseReader,
    private readonly dialect: StreamDialect,
    phases: AnswerPhases,
    private readonly onEnd: (relay: StreamRelay) => void,
    /** The gateway's error for an upstream silent `ms` (StreamControl.timeOut). */
    private readonly idleError: (ms: number) => GatewayError,
    /** The attempt's span, when the request is traced: it reads the client's events for finish reasons. */
    private readonly trace?: AttemptTrace,
  ) {
    this.chain = new FilterChain(phases.readsEvents(ctx) ? phases.filters(ctx, this) : []);
    this.filtered = this.chain.readers.length > 0;
    const onFrame: FrameHandler = (buf, start, end, ev) => this.onFrame(buf, start, end, ev);
    // Stages and a trace see every event; otherwise the reader's skim spares the parse of the rest.
    const { skim } = reader;
    this.frames = new SseFrames(
      onFrame,
      skim && !this.filtered && !trace
        ? {
            reads: (frame) => skim.reads(frame),
            onRun: (buf, start, end) => this.onPassed(buf, start, end, skim),
          }
        : undefined,
    );
  }

  start(headers: OutgoingHttpHeaders, cutError: () => GatewayError): void {
    const { ctx, upstreamRes } = this;
    ctx.status = upstreamRes.statusCode ?? 200;
    headers['content-type'] = 'text/event-stream';
    headers['cache-control'] = 'no-cache';
    headers['x-accel-buffering'] = 'no';
    ctx.res.writeHead(ctx.status, headers);
    this.holdUntilTurnEnds();
    upstreamRes.on('data', (chunk: Buffer) => {
      // The reads of one turn are one moment to the idle limit: the clock is read at the turn's first.
      if (!this.held) this.lastUpstream = Date.now();
      this.frames.push(chunk);
      this.afterRead();
    });
    upstreamRes.on('end', () => {
      this.frames.end();
      if (this.final) return;
      this.release(this.chain.flush());
      if (this.reader.complete) this.stop('ok');
      else if (this.reader.failed) this.stop('vendor_error');
      else this.stop('upstream_cut', cutError());
    });
    upstreamRes.on('error', () => undefined); // 'close' below decides what a broken upstream means
    upstreamRes.on('close', () => {
      if (upstreamRes.complete || this.ended) return;
      this.release(this.chain.flush());
      this.stop(this.reader.failed ? 'vendor_error' : 'upstream_cut', cutError());
    });
  }

  /** A stage ends the stream (StreamControl): `final` goes out after what was released, and nothing more. */
  end(final: ClientEvents): void {
    if (this.ended || this.final) return;
    this.final = eventsOf(final);
    // Within an event's filtering, the stream ends once that event is through (onFrame).
    if (!this.filtering) this.endByStage();
  }

  usage(): Usage {
    return this.reader.usage();
  }

  quietMs(): number {
    return Date.now() - this.lastWrite;
  }

  silentMs(): number {
    return Date.now() - this.lastUpstream;
  }

  ping(): void {
    if (this.ended) return;
    this.ctx.res.write(this.dialect.ping);
    this.lastWrite = Date.now();
  }

  timeOut(afterMs: number): void {
    this.stop('idle_timeout', this.idleError(afterMs));
  }

  /** Ends the stream with the API's error frame (idle upstream, shutdown, cut) or cleanly. */
  stop(outcome: Outcome, error?: GatewayError): void {
    if (this.ended) return;
    this.ended = true;
    this.chain.close();
    this.ctx.outcome = outcome;
    this.ctx.usage = this.reader.usage();
    const { res } = this.ctx;
    if (!res.destroyed) {
      const rest = this.takePending(); // what this turn gathered: held, and now written with the end
      if (rest !== undefined && rest.length > 0) {
        this.markFirstByte();
        res.write(rest);
      }
      if (error && !this.reader.failed)
        res.write(this.reader.errorFrame?.(error) ?? this.dialect.errorFrame(error));
      res.end();
    }
    if (!this.upstreamRes.complete) this.upstreamRes.destroy();
    this.onEnd(this);
  }

  /** The client went away: nothing more can be written; the proxy aborts the upstream request. */
  abandon(): void {
    this.stop('client_closed');
  }

  /** One whole upstream event (or comment): its own bytes go on unless the reader or a hook changed it. */
  private onFrame(buf: Buffer, start: number, end: number, ev: SseEvent | undefined): void {
    if (this.final) return; // a stage ended the stream: the rest of this read is not the client's
    this.filtering = true;
    const out = ev && this.seen(ev);
    this.filtering = false;
    if (out === ev) this.keep(buf, start, end);
    else if (out) this.release(out);
    else this.endRun();
    if (this.final) this.endByStage();
  }

  /** Events written anew: changed, released by a stage, or a stage's own. */
  private release(out: SseEvent | readonly SseEvent[]): void {
    this.endRun();
    if (isSeveral(out)) for (const one of out) this.pending.push(serializeEvent(one));
    else this.pending.push(serializeEvent(out));
  }

  /** A stage ended the stream: its final events go out with what this read gave, and the upstream closes. */
  private endByStage(): void {
    this.release(this.final!);
    this.stop('refused');
  }

  /** Whole events the reader's skim passed: relayed as they came, and handed to the reader unread. */
  private onPassed(buf: Buffer, start: number, end: number, skim: StreamSkim): void {
    skim.passed(part(buf, start, end));
    this.keep(buf, start, end);
  }

  /** Adds `buf[start, end)` to the run of the upstream's own bytes that go on unchanged. */
  private keep(buf: Buffer, start: number, end: number): void {
    if (this.runBuf === buf && this.runEnd === start) {
      this.runEnd = end;
      return;
    }
    this.endRun();
    this.runBuf = buf;
    this.runStart = start;
    this.runEnd = end;
  }

  /** What the client gets for `ev`: the reader's answer, each event then through the stages' hooks. */
  private seen(ev: SseEvent): ClientEvents {
    const out = this.clientEvents(ev);
    if (this.trace && out) for (const one of isSeveral(out) ? out : [out]) this.trace.answered(one.data);
    return out;
  }

  private clientEvents(ev: SseEvent): ClientEvents {
    const out = this.reader.event(ev);
    return this.filtered ? this.chain.through(0, out) : out;
  }

  private endRun(): void {
    if (this.runBuf) this.pending.push(part(this.runBuf, this.runStart, this.runEnd));
    this.runBuf = undefined;
  }

  /** What this upstream read gave the client, in one write. */
  private takePending(): Buffer | string | undefined {
    this.endRun();
    const { pending } = this;
    if (pending.length < 2) return pending.pop();
    this.pending = [];
    // Events written anew are strings: a turn of only those goes as one string, converted once.
    if (pending.every(isText)) return pending.join('');
    return Buffer.concat(pending.map((p) => (isText(p) ? Buffer.from(p) : p)));
  }

  /** An upstream read is through: what it gave the client waits for the turn's end (holdUntilTurnEnds). */
  private afterRead(): void {
    if (this.ended || (this.pending.length === 0 && !this.runBuf)) return;
    this.markFirstByte();
    this.holdUntilTurnEnds();
  }

  /** The time to the first byte the client gets from the upstream (Observed). */
  private markFirstByte(): void {
    const { observed } = this.ctx;
    if (observed.firstByteAt === 0) observed.firstByteAt = performance.now();
  }

  /** What this turn's upstream reads gave the client, in one write. */
  private writeTurn(): void {
    const data = this.takePending();
    if (data === undefined || data.length === 0) return;
    const ok = this.ctx.res.write(data);
    this.lastWrite = Date.now();
    // Backpressure: a slow client pauses the upstream instead of growing the gateway's memory.
    if (!ok) {
      this.upstreamRes.pause();
      this.ctx.res.once('drain', () => this.upstreamRes.resume());
    }
  }

  /**
   * What the upstream reads of this turn of the event loop gave the client is written once, as the turn
   * ends, and leaves in one system call: with the headers when it is the first, with the stream's end
   * when that came in the same turn (a burst is then a single write). A write per read cost Node a
   * chunk header, the data and a CRLF each, every piece read back from C++ (callgrind: ~100k
   * instructions for a 16-read stream). When the upstream is silent at first, the headers still go out
   * as the turn ends, so the client sees its 200 before the first token.
   */
  private holdUntilTurnEnds(): void {
    if (this.held) return;
    this.held = true;
    this.ctx.res.cork();
    setImmediate(() => {
      this.held = false;
      if (this.ended) return; // res.end() has sent everything held, and the socket may serve another request
      this.writeTurn();
      this.ctx.res.flushHeaders(); // writes nothing when events already carried them
      this.ctx.res.uncork();
    });
  }
}
