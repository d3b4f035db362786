/**
 * A pipeline stage (docs/conventions.md#convention-5) and its phases, in the spirit of Kong's access,
 * header/body filter and log phases. A stage implements the phases it needs; one it leaves out costs
 * nothing. Every phase works alike whether the family relays its vendor's API or translates another.
 */
import type { GatewayError } from '../base/errors';
import type { JsonObject } from '../base/json';
import type { SseEvent } from '../base/sse';
import type { GatewayContext } from './context';
import type { ClientEvents } from './reader';
import type { Usage } from './usage';

export type Next = () => Promise<void>;

/**
 * A JSON answer (an upstream's, or a stage's own) before the client gets it, in the client's API.
 * Parsed on demand: `json()` parses once and only when a stage asks.
 */
export interface JsonAnswer {
  readonly status: number;
  /** The headers the client will get; a stage may add or change them. */
  readonly headers: Record<string, string | number | readonly string[]>;
  /** The body as the client would get it. */
  readonly bytes: Buffer;
  /** Whether a stage nearer the upstream replaced or refused it (a guardrail's mask, a refusal). */
  readonly changed: boolean;
  /** The body parsed, the first call parsing it; undefined when it is not a JSON object. */
  json(): JsonObject | undefined;
  /** The client gets `body` (with `status`, when given) instead. */
  replace(body: JsonObject, status?: number): void;
  /** The client gets this error instead. The upstream's usage is still metered: it was spent. */
  refuse(error: GatewayError): void;
}

/** What a stage may do to a stream beyond each event: keep it alive, and end it early. */
export interface StreamControl {
  /**
   * Ends the stream now: what was already released goes out, then `final` (a finish chunk, an error
   * event, the API's end marker), and the upstream is closed. Usage is what was read so far.
   */
  end(final: ClientEvents): void;
  /** What the call used so far: the upstream's figures, estimated from what was read where it has not said. */
  usage(): Usage;
  /** Milliseconds since the client was last written to. */
  quietMs(): number;
  /** Milliseconds since the upstream last sent anything. */
  silentMs(): number;
  /** Writes the API's keep-alive frame (a comment the client's SDK skips). */
  ping(): void;
  /** Ends the stream because the upstream went silent for `afterMs`: the API's error frame, outcome `idle_timeout`. */
  timeOut(afterMs: number): void;
}

/**
 * One stream's filter, made by a stage's `events` phase when the stream starts. Each event comes in the
 * client's API, from the stage after it (or from the upstream's reader, for the last stage).
 */
export interface EventFilter {
  /**
   * What goes on for `ev`: the event itself (kept: the upstream's own bytes are written), another
   * (rewritten), null (dropped, or held back to release later), or several (held events released with it).
   * A filter without it only watches the stream (its timing), and leaves the relay its fast path.
   */
  event?(ev: SseEvent): ClientEvents;
  /** The upstream's stream ended: events still held go out now (or are dropped by returning null). */
  flush?(): ClientEvents;
  /** The stream is over, however it ended: release what the filter keeps (a timer). */
  close?(end: StreamEnd): void;
}

/** How a stream looked to one filter, told as it closes. */
export interface StreamEnd {
  /**
   * Whether a stage nearer the upstream rewrote, dropped or held back events this filter saw: what it saw
   * is then not the answer as it came (a cache must not store it).
   */
  readonly changed: boolean;
}

/**
 * A pipeline stage. `handle` runs in gateway.yaml order, onion style; `response` and `events` run for the
 * answer in the reverse order, the stage nearest the upstream first; `finish` runs once after the last
 * byte (or after an error response), for every stage whose `handle` was reached, and must not throw.
 */
export interface Middleware {
  /**
   * The request phase: read or rewrite the request, refuse it (throw), answer it, or pass it on (`next`).
   * Every request waits on it, and each promise is a turn of the event loop: a plain function returns
   * `next()`; an async one awaits it, since an async function that returns a promise settles two turns
   * after it, through a job and a promise of their own.
   */
  handle?(ctx: GatewayContext, next: Next): Promise<void>;
  /**
   * The response phase: a whole JSON answer, the upstream's (2xx or its error) or a stage's own, to keep,
   * change, replace or refuse. The gateway's own error answers (a refusal, a 502) do not pass it.
   */
  response?(ctx: GatewayContext, answer: JsonAnswer): void | Promise<void>;
  /**
   * The events phase: called as a stream starts; returns the filter for its events, or undefined to
   * leave this stream alone (which keeps the relay's fast path when no stage reads it).
   */
  events?(ctx: GatewayContext, stream: StreamControl): EventFilter | undefined;
  /** The finish phase: after the last byte, with everything the call produced. */
  finish?(ctx: GatewayContext): void;
}
