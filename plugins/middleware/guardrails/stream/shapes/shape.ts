/**
 * Where one client API's stream carries the answer's text, for the stream guard: which members of an
 * event are pieces of which run of text, which events end a run or repeat its whole text, and how the API
 * writes a run's held-back rest and the end of a stream a rule blocked. A shape is made per stream: it
 * remembers what the client was given (the chunks' head, the open blocks and items).
 */
import type { JsonObject } from '../../../../../core/kit/json';
import type { SseEvent, Usage } from '../../../../../core/kit/plugin';

/** One piece of a run's text in an event, and how to write another text in its place. */
export interface Piece {
  /** The run it belongs to (a choice's content, a tool call's arguments, a content block), named by the shape. */
  readonly run: string;
  readonly text: string;
  /** Writes `text` into the event in place of the piece (and drops what would show the piece's text otherwise). */
  put(text: string): void;
}

/** The one piece of text an event carries and nothing else, read from the event's own text. */
export interface BarePiece {
  readonly run: string;
  readonly text: string;
}

/** A run the event ends, or whose whole text it repeats (a done event). */
export interface Ending {
  readonly run: string;
  /** The run's whole text as the event repeats it, with `put` to write the released text in its place. */
  readonly whole?: { readonly text: string; put(text: string): void };
}

/** What the guard reads in one event. */
export interface EventView {
  /** The text the event adds, run by run. */
  readonly pieces: readonly Piece[];
  /** The runs it ends, once its pieces are added: their held rest goes out first. */
  readonly ends: readonly Ending[];
  /** Whether the event carries nothing but its pieces: once they are all held back, it can be dropped. */
  readonly bare: boolean;
}

/** What the client was given of a run. */
export type Released = (run: string) => string;

/** What a shape needs to write the end of a blocked stream. */
export interface BlockedEnd {
  readonly released: Released;
  readonly usage: Usage;
  /** Whether the chat client asked for a usage chunk (`stream_options.include_usage`). */
  readonly includeUsage: boolean;
}

export interface StreamShape {
  /**
   * The piece of an event that carries nothing but one piece of text (EventView.bare), read from the
   * event's text without parsing it; undefined when the text is not plainly such an event (the guard then
   * parses and reads it). Most of a stream is such events: a parse each cost more than the rules' scans.
   * A bare event goes on as it came, or as `textEvent` of its text when that changed: `passing` does not
   * see it, so a shape offers this only where passing leaves such an event alone.
   */
  bare?(data: string): BarePiece | undefined;
  /** Reads an event's JSON: its pieces and endings (empty for an event that carries no text). */
  read(payload: JsonObject): EventView;
  /** Whether an event that is not a JSON object ends the answer (chat's `[DONE]`): every run ends before it. */
  closes(ev: SseEvent): boolean;
  /**
   * The event `payload` (read last) goes to the client: the shape notes what it opens or closes, and
   * numbers it where the API does. True when that changed the payload.
   */
  passing(payload: JsonObject): boolean;
  /** An event that carries `text` for `run` alone: a run's rest, released at its end or before a block. */
  textEvent(run: string, text: string): SseEvent;
  /** The API's end of a stream a rule blocked, after what was released: what a filtered answer ends with. */
  blockedEnd(end: BlockedEnd): SseEvent[];
}
