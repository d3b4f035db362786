import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { BatchRegistry } from './batch-registry';
import type { Call } from './call';
import { writeJson } from './http-io';
import type { LoggedRequest } from './request-log';
import type { Params } from '../lib/router';
import { SimError } from './sim-error';
import type { PromptCache } from './prompt-cache';
import type { TaskRegistry } from './tasks/registry';

const NO_BYTES = Buffer.alloc(0);

// 429 answers tell clients when to come back, as the vendors do.
const EXTRA_ERROR_HEADERS: Readonly<Record<number, OutgoingHttpHeaders>> = { 429: { 'retry-after': '1' } };

/**
 * One request/response pair as a route handler sees it: the parsed body, the log entry, and
 * helpers that answer in the family's shape. It also tracks the connection so timers stop as
 * soon as the client goes away.
 */
export class Exchange implements Call {
  /** True once the response or its connection closed; pending work must stop. */
  closed = false;
  /** True when the body was not valid JSON (the log then holds the raw text). */
  bodyInvalid = false;
  /** The body's bytes as received, for a route that reads a body other than JSON (a file upload). */
  rawBody: Buffer = NO_BYTES;
  /** The values of the route's `:name` path segments, percent-decoded. */
  params: Params = {};
  private cutByServer = false;
  private readonly cleanups: (() => void)[] = [];

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly entry: LoggedRequest,
    readonly family: Family,
    /** The simulator's video tasks, which outlive any one exchange. */
    readonly tasks: TaskRegistry,
    /** The simulator's prompt cache, which its chat, messages and responses routes read. */
    readonly promptCache: PromptCache,
    /** The simulator's batches and the files they read and write, which outlive any one exchange. */
    readonly batches: BatchRegistry,
  ) {
    res.once('close', this.handleClose);
  }

  /** The request body as recorded in the log. */
  get body(): unknown {
    return this.entry.body;
  }

  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }

  get simId(): string {
    return this.entry.id;
  }

  get familyName(): string {
    return this.family.name;
  }

  /** The query string's parameters (list routes page with them). */
  get query(): URLSearchParams {
    const url = this.req.url ?? '';
    const q = url.indexOf('?');
    return new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  }

  /** Runs `fn` when the connection closes (at once if it already has). */
  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.cleanups.push(fn);
  }

  /** Waits `ms`; resolves false instead if the connection closes first. */
  delay(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(!this.closed), ms);
      this.onClose(() => {
        clearTimeout(timer);
        resolve(false);
      });
    });
  }

  /** Headers every answer of the family carries. */
  baseHeaders(): OutgoingHttpHeaders {
    return { [this.family.requestIdHeader]: this.entry.id };
  }

  /** Sends a complete JSON answer. */
  sendJson(status: number, payload: unknown, extra?: OutgoingHttpHeaders): void {
    writeJson(this.res, status, payload, { ...this.baseHeaders(), ...extra });
  }

  /** Sends a complete answer of raw bytes (a file's content). */
  sendBytes(status: number, bytes: Buffer, contentType: string, extra?: OutgoingHttpHeaders): void {
    this.res.writeHead(status, {
      ...this.baseHeaders(),
      ...extra,
      'content-type': contentType,
      'content-length': bytes.length,
    });
    this.res.end(bytes);
  }

  /** Answers with the family's error body for `err`. */
  sendError(err: SimError): void {
    this.sendJson(err.status, this.family.errorBody(err, this.entry.id), EXTRA_ERROR_HEADERS[err.status]);
  }

  /** Ends the exchange after a handler threw: an error answer if possible, else a dropped connection. */
  fail(err: unknown): void {
    if (this.closed) return;
    if (this.res.headersSent) {
      this.res.destroy();
      return;
    }
    if (err instanceof SimError) return this.sendError(err);
    console.error('simulator: handler failed', err);
    this.sendError(new SimError(500));
  }

  /**
   * Cuts the connection mid-response on purpose: bytes already written are flushed, then the
   * socket closes without the chunked terminator, so the client sees a truncated body.
   */
  cut(): void {
    this.cutByServer = true;
    const socket = this.res.socket;
    // end() flushes corked writes before the FIN; destroy() afterwards releases the socket.
    socket?.end(() => socket.destroy());
  }

  private readonly handleClose = (): void => {
    this.closed = true;
    const { entry, res } = this;
    entry.finished = res.writableFinished;
    entry.aborted = !entry.finished && !this.cutByServer;
    entry.status = res.headersSent ? res.statusCode : null;
    for (const fn of this.cleanups) fn();
    this.cleanups.length = 0;
  };
}

/** Handles one route; throws SimError for error answers. */
export type RouteHandler = (ex: Exchange) => void | Promise<void>;

/**
 * One upstream family the simulator speaks (a vendor dialect). The server knows families only
 * through this interface, so adding a family is one file plus a line in `families/index.ts`.
 */
export interface Family {
  /** Key of `SimulatorOptions.keys`, e.g. `modela`. */
  readonly name: string;
  /** First path segment the family lives under, e.g. `/modela`. */
  readonly mount: string;
  /** Credential expected when `SimulatorOptions.keys` does not name one. */
  readonly defaultKey: string;
  /** Response header carrying the simulator's request id, named as the vendor names it. */
  readonly requestIdHeader: string;
  /**
   * Routes below the mount, keyed `METHOD /path`, e.g. `POST /v1/chat/completions`; a `:name`
   * segment matches any one segment and reaches the handler as `ex.params.name`, and `:name:verb` a
   * segment ending in `:verb` (`POST /v1beta/models/:model:generateContent`). A route whose path has a
   * `:model` parameter carries the model there: the faults match that one, not the body's.
   */
  readonly routes: Readonly<Record<string, RouteHandler>>;
  /** Whether the request carries the expected credential in the vendor's auth style. */
  authorized(headers: IncomingHttpHeaders, key: string): boolean;
  /** The vendor's error body for `err`; `simId` is the simulator's id of the request. */
  errorBody(err: SimError, simId: string): unknown;
}
