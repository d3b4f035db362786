/**
 * The guardrails stage's events phase: the rules read a stream's answer as it goes, in the client's API.
 * Each run of text (a choice's content, a tool call's arguments, a content block) is held back only as
 * far as a match could still begin in it (HeldText), so clean text goes on at once, in the upstream's own
 * bytes, and an event is written anew only when its text changed: masked, held back, or released late.
 * A block releases the text before its match and ends the stream as the API ends a filtered answer.
 */
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import type { ClientEvents, SseEvent } from '../../../core/kit/plugin';
import type { EventFilter, StreamControl } from '../../../core/kit/stage';
import type { Decision } from './decide';
import { HeldText } from './held-text';
import type { Rule } from './rules';
import type { Ending, EventView, StreamShape } from './stream-shapes/shape';

export interface StreamGuardInput {
  /** The client API's shape, fresh for this stream (streamShape). */
  readonly shape: StreamShape;
  /** The rules that read this call's answer. */
  readonly rules: readonly Rule[];
  /** The most text a run holds back (`stream_hold`). */
  readonly bound: number;
  readonly control: StreamControl;
  /** Whether a chat client asked for the usage chunk (`stream_options.include_usage`): a blocked end has one. */
  readonly includeUsage: boolean;
  /** A rule acted (masked, logged, blocked): told once per rule. */
  readonly acted: (rule: Rule) => void;
}

/** Text of a run that may go on, in the order decided. */
interface Out {
  readonly run: string;
  readonly text: string;
}

/** Where a run's decisions stopped at a block: the text before it, decided so far. */
interface Stop {
  readonly run: string;
  readonly decision: Decision;
}

function parseObject(data: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The event with its JSON written anew, its SSE name and id kept. */
const rewritten = (ev: SseEvent, payload: JsonObject): SseEvent => ({
  ...(ev.event !== undefined ? { event: ev.event } : {}),
  ...(ev.id !== undefined ? { id: ev.id } : {}),
  data: JSON.stringify(payload),
});

/** A decision for a whole text at once: pushed, then flushed. */
function decideWhole(held: HeldText, text: string): Decision {
  const first = held.push(text);
  if (first.blocked) return first;
  const rest = held.flush();
  return { ...rest, out: first.out + rest.out, acted: [...first.acted, ...rest.acted] };
}

export class StreamGuard implements EventFilter {
  private readonly runs = new Map<string, HeldText>();
  private readonly told = new Set<Rule>();
  /** Set once a rule blocked: the stream is ending, and nothing more of it is the client's. */
  private blocked = false;
  private readonly released = (run: string): string => this.runs.get(run)?.released ?? '';

  constructor(private readonly input: StreamGuardInput) {}

  event(ev: SseEvent): ClientEvents {
    if (this.blocked) return null;
    const payload = parseObject(ev.data);
    if (payload) return this.guard(ev, payload, this.input.shape.read(payload));
    if (!this.input.shape.closes(ev)) return ev;
    // The answer ends (chat's [DONE]): what runs still hold goes out before it.
    const { outs, stop } = this.endAll();
    if (stop) return this.block(outs, stop);
    const rests = this.textEvents(outs);
    return rests.length > 0 ? [...rests, ev] : ev;
  }

  flush(): ClientEvents {
    if (this.blocked) return null;
    const { outs, stop } = this.endAll();
    if (!stop) {
      const rests = this.textEvents(outs);
      return rests.length > 0 ? rests : null;
    }
    // Not within an event: the text before the match goes out as the first of the final events.
    return this.block(outs, stop, false);
  }

  /** One event's pieces and endings through the rules; the event kept, rewritten, dropped, or with rests before it. */
  private guard(ev: SseEvent, payload: JsonObject, view: EventView): ClientEvents {
    const decided: Out[] = [];
    const texts: string[] = [];
    for (const { run, text } of view.pieces) {
      const decision = this.run(run).push(text);
      if (this.note(decision)) return this.block(decided, { run, decision });
      decided.push({ run, text: decision.out });
      texts.push(decision.out);
    }
    const rests: Out[] = [];
    for (const ending of view.ends) {
      const { run } = ending;
      const streamed = this.runs.has(run);
      const decision = this.end(ending);
      if (decision === undefined) continue;
      if (this.note(decision)) return this.block(decided, { run, decision });
      decided.push({ run, text: decision.out });
      // A rest goes with the run's piece in this event, else in an event of its own before it.
      const at = view.pieces.findIndex((p) => p.run === run);
      if (at >= 0) texts[at] += decision.out;
      else if (streamed) rests.push({ run, text: decision.out });
    }
    let changed = false;
    view.pieces.forEach((piece, i) => {
      if (texts[i] === piece.text) return;
      piece.put(texts[i]!);
      changed = true;
    });
    changed = this.putWholes(view.ends) || changed;
    const before = this.textEvents(rests);
    if (changed && view.bare && texts.every((text) => text === '')) return before.length > 0 ? before : null;
    if (this.input.shape.passing(payload)) changed = true;
    const out = changed ? rewritten(ev, payload) : ev;
    return before.length > 0 ? [...before, out] : out;
  }

  /**
   * A run ends: what it holds is decided. A run never read before whose whole text the event repeats
   * (a done event without deltas) is decided whole: the event carries it, as released.
   */
  private end(ending: Ending): Decision | undefined {
    const held = this.runs.get(ending.run);
    if (held) return held.flush();
    if (ending.whole === undefined) return undefined;
    return decideWhole(this.run(ending.run), ending.whole.text);
  }

  /** Texts an event repeats whole are written as the client was given them. True when one changed. */
  private putWholes(ends: readonly Ending[]): boolean {
    let changed = false;
    for (const { run, whole } of ends) {
      if (whole === undefined) continue;
      const released = this.released(run);
      if (released === whole.text) continue;
      whole.put(released);
      changed = true;
    }
    return changed;
  }

  /** Every run ends (the answer's end, the upstream's end): what each held, decided, up to a block. */
  private endAll(): { outs: Out[]; stop?: Stop } {
    const outs: Out[] = [];
    for (const [run, held] of this.runs) {
      const decision = held.flush();
      if (this.note(decision)) return { outs, stop: { run, decision } };
      outs.push({ run, text: decision.out });
    }
    return { outs };
  }

  /**
   * A rule blocked: the text decided before its match goes out, then the API's filtered end. Within an
   * event that text is returned and the end given to `control.end` (which writes it after); outside one
   * (the upstream's end) both go to `control.end`, in that order.
   */
  private block(decided: readonly Out[], { run, decision }: Stop, withinEvent = true): ClientEvents {
    this.blocked = true;
    const released = this.textEvents([...decided, { run, text: decision.out }]);
    const { shape, control, includeUsage } = this.input;
    const ending = shape.blockedEnd({ released: this.released, usage: control.usage(), includeUsage });
    if (!withinEvent) {
      control.end([...released, ...ending]);
      return null;
    }
    control.end(ending);
    return released.length > 0 ? released : null;
  }

  /** Tells the stage of the rules that acted; true when one blocked. */
  private note(decision: Decision): boolean {
    for (const rule of decision.acted) {
      if (this.told.has(rule)) continue;
      this.told.add(rule);
      this.input.acted(rule);
    }
    return decision.blocked !== undefined;
  }

  private textEvents(outs: readonly Out[]): SseEvent[] {
    return outs
      .filter(({ text }) => text !== '')
      .map(({ run, text }) => this.input.shape.textEvent(run, text));
  }

  private run(run: string): HeldText {
    let held = this.runs.get(run);
    if (!held) this.runs.set(run, (held = new HeldText(this.input.rules, this.input.bound)));
    return held;
  }
}
