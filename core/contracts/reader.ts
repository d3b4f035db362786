/**
 * How an upstream family reads its vendor's answer: usage for billing, the protocol's end, errors, and
 * (for a family whose vendor speaks another API than the client's) the client's answer. One reader per
 * request, created by the family's `prepare`.
 */
import type { GatewayError } from '../base/errors';
import type { JsonObject } from '../base/json';
import type { SseEvent } from '../base/sse';
import type { Usage } from './usage';

/** What the client gets for one event: that event (possibly changed), none, or several. */
export type ClientEvents = SseEvent | readonly SseEvent[] | null;

/** An upstream's error answer (status ≥ 400), as the error-body hook sees it. */
export interface VendorError {
  readonly status: number;
  /** The body as the vendor sent it. */
  readonly body: Buffer;
  /** The body parsed, when it is a JSON object. */
  readonly json: JsonObject | undefined;
}

/**
 * How a reader skims a stream: most of its events are generated text only the client needs, and need
 * not be parsed. `reads` tells from an event's raw text whether the reader must read it (its end, an
 * error, usage); an event it passes goes to the client as the upstream wrote it, and to `passed` instead
 * of `event`. While a pipeline stage reads events, or the request is traced, every event is parsed and
 * read as without a skim.
 */
export interface StreamSkim {
  /**
   * `frame`: one whole event's bytes read as latin1, a character per byte (search it for ASCII only),
   * field names and blank line included. Saying yes to an event the reader does not need costs only its
   * parse; saying no to one it needs loses it.
   */
  reads(frame: string): boolean;
  /** Whole events passed unread, in order, as the upstream's bytes: for an estimate read only if needed. */
  passed(frames: Buffer): void;
}

/**
 * What a reader does whether or not it translates. Created per request by the upstream plugin, so it
 * may keep per-stream state (what was delivered, whether the protocol's end was seen).
 */
interface ReaderBase {
  /**
   * Sees each upstream event; returns what the client gets for it: the event itself (possibly changed),
   * null to drop it, or several events, so a translating family can turn a vendor's end event into the
   * client API's finish chunk, usage chunk and end marker (for a chat client, the kit's `chatChunk`,
   * `chatUsageChunk`, `CHAT_DONE` and `chatErrorEvent` build them).
   */
  event(ev: SseEvent): ClientEvents;
  /**
   * The client's body for an upstream error answer, or undefined to pass the vendor's bytes on. Absent,
   * the gateway's default applies (`contractErrorBody` in the kit): a body the client's SDK can read
   * passes through, any other becomes the contract's error shape keeping the vendor's message and code.
   */
  errorBody?(answer: VendorError): JsonObject | undefined;
  /**
   * The frames that end this stream when the gateway cuts it (upstream cut, idle, shutdown), where they
   * depend on the stream so far (a numbered event, a failed-response event); absent, the API's own
   * `StreamDialect.errorFrame`.
   */
  errorFrame?(error: GatewayError): string;
  /** Which stream events this reader must read; absent, every event goes to `event`. */
  readonly skim?: StreamSkim;
  /**
   * True once the protocol's own end of stream arrived (`[DONE]`, `message_stop`). A stream whose
   * connection ends before it is a cut: the client gets the error frame and the call's outcome says so.
   */
  readonly complete: boolean;
  /**
   * True when the upstream sent an error inside the stream, which went to the client as it came: the
   * gateway adds no error frame of its own, and the call's outcome is the vendor's error.
   */
  readonly failed: boolean;
  /**
   * Usage so far: the upstream's figures once it sent them, else an estimate from the prompt and what
   * was delivered, marked `estimated` (see Usage). Read when the call ends, however it ends.
   */
  usage(): Usage;
}

/**
 * The reader of a family whose vendor speaks the client's API: the vendor's body goes to the client,
 * changed only where `json` says.
 */
export interface RelayingReader extends ReaderBase {
  readonly translates?: false;
  /** Usage of a complete JSON response; `replace` is a new body when the plugin had to change it. */
  json(body: JsonObject): { usage: Usage; replace?: JsonObject };
  /**
   * Usage of a JSON response from its top-level `usage` object alone, where that member decides it;
   * undefined sends the whole body to `json`. With it the proxy parses only that member of the body,
   * and the vendor's bytes go to the client as they are.
   */
  usageMember?(usage: JsonObject): Usage | undefined;
}

/**
 * The reader of a family whose vendor speaks another API than the client's: every JSON body is parsed
 * whole and replaced by its translation (there is no `usageMember` shortcut that would let the vendor's
 * body through).
 */
export interface TranslatingReader extends ReaderBase {
  readonly translates: true;
  /** Usage of a complete JSON response and the client's body for it. */
  json(body: JsonObject): { usage: Usage; replace: JsonObject };
}

/** Reads one upstream response for usage, and translates it where the family's vendor speaks another API. */
export type ResponseReader = RelayingReader | TranslatingReader;
