/**
 * The stream guard's events of one run held until their text is decided: an event goes out once the rules
 * decided all of its text, as the upstream wrote it (the same object, its own bytes) when nothing changed
 * it, else with the text decided for it. Clean text so goes on one event late, never written anew; only
 * an event a mask touched, or that carries text held back from before it, is rewritten.
 */
import type { JsonObject } from '../../../../core/kit/json';
import type { SseEvent } from '../../../../core/kit/plugin';
import type { HeldText } from './held-text';
import type { BarePiece, Piece } from './shapes/shape';

/** One run of text as the guard reads it: the rules' held text, and how much of the run came so far. */
export interface RunText {
  readonly held: HeldText;
  pushed: number;
}

/** Where the run's decided text ends: HeldText holds exactly the undecided rest. */
export const decidedOf = (run: RunText): number => run.pushed - run.held.held.length;

/**
 * An event held for its one piece: parsed, its piece put back into its JSON when its text changes; or
 * bare, read from its text (StreamShape.bare), and written anew when its text changes.
 */
export type HeldEvent =
  | { readonly ev: SseEvent; readonly payload: JsonObject; readonly piece: Piece }
  | { readonly ev: SseEvent; readonly payload: undefined; readonly piece: BarePiece };

/** One held event: its piece is the run's text `[start, end)`. */
interface Slot {
  readonly held: HeldEvent;
  readonly start: number;
  readonly end: number;
  /** How much of its text is decided as it came. */
  filled: number;
  /** The text decided for it once that differs from its own (a mask, text held from before it). */
  changed: string | undefined;
}

/** Sends a held event: `text` undefined when it goes as it came; undefined when it is dropped. */
export type Send = (held: HeldEvent, text: string | undefined) => SseEvent | undefined;

export class HeldEvents {
  private slots: Slot[] = [];
  /** The run whose events are held (while any are). */
  private heldRun: RunText | undefined;

  /** The run whose events are held; undefined when none are. */
  get run(): RunText | undefined {
    return this.slots.length > 0 ? this.heldRun : undefined;
  }

  /** Holds an event whose piece is the next text of `run` (before it is pushed). */
  add(held: HeldEvent, run: RunText): void {
    this.heldRun = run;
    const start = run.pushed;
    this.slots.push({
      held,
      start,
      end: start + held.piece.text.length,
      filled: 0,
      changed: undefined,
    });
  }

  /**
   * The rules decided `out` for the held run's text `[from, to)`; `raw` is that text as it came (and maybe
   * more). Text as it came goes with the events it came in (text held from events already sent, with the
   * first held one); a mask's placeholder goes with the event where its match begins.
   */
  decided(out: string, from: number, to: number, raw: string): void {
    if (this.slots.length === 0 || (from === to && out === '')) return;
    const length = to - from;
    if (out.length === length && raw.startsWith(out)) return this.fill(out, from, to);
    let same = 0;
    const most = Math.min(out.length, length);
    while (same < most && out.charCodeAt(same) === raw.charCodeAt(same)) same++;
    if (isHigh(out.charCodeAt(same - 1))) same--; // a pair goes whole
    let tail = 0;
    while (tail < most - same && out.charCodeAt(out.length - 1 - tail) === raw.charCodeAt(length - 1 - tail))
      tail++;
    if (isLow(out.charCodeAt(out.length - tail))) tail--;
    this.fill(out.slice(0, same), from, from + same);
    this.replace(out.slice(same, out.length - tail), from + same, to - tail);
    this.fill(out.slice(out.length - tail), to - tail, to);
  }

  /**
   * The held events whose text is all decided (up to `decided`), in order, stopping at the first that is
   * not; `all`: every one, with the text decided for it so far (the rest, still held, goes with a later one).
   */
  take(decided: number, all: boolean, send: Send): SseEvent[] {
    const out: SseEvent[] = [];
    let taken = 0;
    for (const slot of this.slots) {
      if (!all && slot.end > decided) break;
      taken++;
      const { piece } = slot.held;
      const asCame = slot.changed === undefined && slot.filled === piece.text.length;
      const text = asCame ? undefined : (slot.changed ?? piece.text.slice(0, slot.filled));
      const ev = send(slot.held, text);
      if (ev) out.push(ev);
    }
    if (taken > 0) this.slots = taken === this.slots.length ? [] : this.slots.slice(taken);
    return out;
  }

  /** `text`, the run's own `[from, to)`: each part with the event it came in, or the first held one. */
  private fill(text: string, from: number, to: number): void {
    if (from === to) return;
    const first = this.slots[0]!;
    if (from < first.start) put(first, text.slice(0, Math.min(to, first.start) - from));
    for (const slot of this.slots) {
      if (slot.start >= to) break;
      if (slot.end <= from) continue;
      const lo = Math.max(from, slot.start);
      const hi = Math.min(to, slot.end);
      if (slot.changed === undefined) slot.filled += hi - lo;
      else slot.changed += text.slice(lo - from, hi - from);
    }
  }

  /** `text` in place of the run's `[from, to)`: whole with the event where it begins, the others it covers changed. */
  private replace(text: string, from: number, to: number): void {
    const { slots } = this;
    const at = slots.findIndex((slot) => slot.end > from);
    const target = at < 0 ? slots.length - 1 : at;
    put(slots[target]!, text);
    for (let i = target + 1; i < slots.length && slots[i]!.start < to; i++) put(slots[i]!, '');
  }
}

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** `text` goes with `slot`, after what was decided for it: the slot no longer goes as it came. */
function put(slot: Slot, text: string): void {
  slot.changed = (slot.changed ?? slot.held.piece.text.slice(0, slot.filled)) + text;
}
