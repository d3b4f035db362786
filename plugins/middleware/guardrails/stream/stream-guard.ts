/**
 * The guardrails stage's events phase: the rules read a stream's answer as it goes, in the client's API.
 * Each run of text (a choice's content, a tool call's arguments, a content block) is held back only as
 * far as a match could still begin in it (HeldText). An event that carries nothing but one piece of text
 * is held until all of that text is decided (HeldEvents), then goes on as the upstream's own event: clean
 * text costs at most one event of latency and no rewriting. Other events are written anew only when their
 * text changed: masked, held back, or released late. A block releases the text before its match and ends
 * the stream as the API ends a filtered answer.
 */
import { isJsonObject, type JsonObject } from '../../../../core/kit/json';
import type { ClientEvents, SseEvent } from '../../../../core/kit/plugin';
import type { EventFilter, StreamControl } from '../../../../core/kit/stage';
import type { Decision } from '../decide';
import { decidedOf, type HeldEvent, HeldEvents, type RunText, type Send } from './held-events';
import { HeldText } from './held-text';
import type { Rule } from '../rules';
import type { Ending, EventView, StreamShape } from './shapes/shape';

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

/** How a JSON object's text begins: anything else (chat's `[DONE]`) is not one. */
const OBJECT_START = /^[\t\n\r ]*\{/;

/**
 * The event's data as a JSON object, or undefined. Data that cannot be one is not handed to JSON.parse:
 * the SyntaxError a failed parse throws (its message and stack trace) cost 72k instructions, as much as
 * parsing five or six chunks.
 */
function parseObject(data: string): JsonObject | undefined {
  if (!OBJECT_START.test(data)) return undefined;
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

/** Whether a text begins or ends with half a surrogate pair: the event cannot go as it came. */
function splitsPair(text: string): boolean {
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  return (first >= 0xdc00 && first <= 0xdfff) || (last >= 0xd800 && last <= 0xdbff);
}

/**
 * Whether the event carries nothing but one piece of text, ends no run, and holds no half character:
 * it can wait for its text to be decided and then go as it came.
 */
const isSimple = (view: EventView): boolean =>
  view.bare && view.pieces.length === 1 && view.ends.length === 0 && !splitsPair(view.pieces[0]!.text);

/** What goes out: `before`, then `out`; one event alone stays itself (the upstream's bytes, when it is theirs). */
function after(before: readonly SseEvent[], out: ClientEvents): ClientEvents {
  if (before.length === 0) return out;
  if (out === null) return [...before];
  return Array.isArray(out) ? [...before, ...(out as readonly SseEvent[])] : [...before, out as SseEvent];
}

export class StreamGuard implements EventFilter {
  private readonly runs = new Map<string, RunText>();
  private readonly told = new Set<Rule>();
  /** The events held until their text is decided, all of one run. */
  private readonly queue = new HeldEvents();
  /** Set once a rule blocked: the stream is ending, and nothing more of it is the client's. */
  private blocked = false;
  private readonly released = (run: string): string => this.runs.get(run)?.held.released ?? '';
  /**
   * A held event goes out: as it came (renumbered, where the API numbers events), rewritten, or dropped.
   * A bare one, never parsed, is written anew as the shape writes a run's text.
   */
  private readonly send: Send = ({ ev, payload, piece }, text) => {
    const { shape } = this.input;
    if (payload === undefined)
      return text === undefined ? ev : text === '' ? undefined : shape.textEvent(piece.run, text);
    if (text === undefined) return shape.passing(payload) ? rewritten(ev, payload) : ev;
    if (text === '') return undefined; // nothing but its text, all held back or masked away
    piece.put(text);
    shape.passing(payload);
    return rewritten(ev, payload);
  };

  constructor(private readonly input: StreamGuardInput) {}

  event(ev: SseEvent): ClientEvents {
    if (this.blocked) return null;
    const { shape } = this.input;
    const bare = shape.bare?.(ev.data);
    if (bare !== undefined && !splitsPair(bare.text))
      return this.hold({ ev, payload: undefined, piece: bare });
    const payload = parseObject(ev.data);
    if (payload) {
      const view = shape.read(payload);
      if (!isSimple(view)) return this.guard(ev, payload, view);
      return this.hold({ ev, payload, piece: view.pieces[0]! });
    }
    if (!shape.closes(ev)) return after(this.releaseAll(), ev);
    // The answer ends (chat's [DONE]): what runs still hold goes out before it.
    const held = this.endHeld();
    if (held.blocked) return this.block(held.events);
    const { outs, stop } = this.endAll();
    if (stop) return this.block([...held.events, ...this.stopped(outs, stop)]);
    return after([...held.events, ...this.textEvents(outs)], ev);
  }

  flush(): ClientEvents {
    if (this.blocked) return null;
    // Not within an event: the text before a match goes out as the first of the final events.
    const held = this.endHeld();
    if (held.blocked) return this.block(held.events, false);
    const { outs, stop } = this.endAll();
    if (stop) return this.block([...held.events, ...this.stopped(outs, stop)], false);
    const rests = [...held.events, ...this.textEvents(outs)];
    return rests.length > 0 ? rests : null;
  }

  /**
   * An event of nothing but one piece: held until its text is decided, with the run's events before it.
   * Events held of another run go first, with what was decided for them so far.
   */
  private hold(event: HeldEvent): ClientEvents {
    const { piece } = event;
    const run = this.run(piece.run);
    const held = this.queue.run;
    const before = held !== undefined && held !== run ? this.releaseAll() : [];
    this.queue.add(event, run);
    const decision = this.advance(run, piece.text);
    if (this.note(decision)) return this.block([...before, ...this.releaseAll()]);
    const out = this.queue.take(decidedOf(run), false, this.send);
    if (before.length === 0 && out.length < 2) return out[0] ?? null;
    return after(before, out);
  }

  /** The held run ends (with the answer, the upstream, or an event that ends it): its events all go. */
  private endHeld(): { events: SseEvent[]; blocked: boolean } {
    const run = this.queue.run;
    if (run === undefined) return { events: [], blocked: false };
    const blocked = this.note(this.advance(run));
    return { events: this.releaseAll(), blocked };
  }

  /** Every held event goes now, with the text decided for it so far. */
  private releaseAll(): SseEvent[] {
    return this.queue.run === undefined ? [] : this.queue.take(Infinity, true, this.send);
  }

  /** `piece` added to the held run (flushed, without one), what it decides given to the held events. */
  private advance(run: RunText, piece?: string): Decision {
    const before = run.held.held;
    const from = run.pushed - before.length;
    const decision = piece === undefined ? run.held.flush() : this.push(run, piece);
    const raw = piece === undefined ? before : before + piece;
    this.queue.decided(decision.out, from, decidedOf(run), raw);
    return decision;
  }

  private push(run: RunText, piece: string): Decision {
    run.pushed += piece.length;
    return run.held.push(piece);
  }

  /**
   * An event that is not simple. Events held go first: as they came when the event ends their run (all
   * their text is then decided), else with what was decided for them so far.
   */
  private guard(ev: SseEvent, payload: JsonObject, view: EventView): ClientEvents {
    const held = this.queue.run;
    if (held === undefined) return this.guardView(ev, payload, view, []);
    const isHeld = ({ run }: { run: string }): boolean => this.runs.get(run) === held;
    if (view.pieces.some(isHeld) || !view.ends.some(isHeld))
      return this.guardView(ev, payload, view, this.releaseAll());
    const ended = this.endHeld();
    if (ended.blocked) return this.block(ended.events);
    return this.guardView(ev, payload, view, ended.events);
  }

  /** One event's pieces and endings through the rules; the event kept, rewritten, dropped, or with rests before it. */
  private guardView(ev: SseEvent, payload: JsonObject, view: EventView, first: SseEvent[]): ClientEvents {
    const decided: Out[] = [];
    const texts: string[] = [];
    for (const { run, text } of view.pieces) {
      const decision = this.push(this.run(run), text);
      if (this.note(decision)) return this.block([...first, ...this.stopped(decided, { run, decision })]);
      decided.push({ run, text: decision.out });
      texts.push(decision.out);
    }
    const rests: Out[] = [];
    for (const ending of view.ends) {
      const { run } = ending;
      const streamed = this.runs.has(run);
      const decision = this.end(ending);
      if (decision === undefined) continue;
      if (this.note(decision)) return this.block([...first, ...this.stopped(decided, { run, decision })]);
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
    const before = [...first, ...this.textEvents(rests)];
    if (changed && view.bare && texts.every((text) => text === '')) return before.length > 0 ? before : null;
    if (this.input.shape.passing(payload)) changed = true;
    return after(before, changed ? rewritten(ev, payload) : ev);
  }

  /**
   * A run ends: what it holds is decided. A run never read before whose whole text the event repeats
   * (a done event without deltas) is decided whole: the event carries it, as released.
   */
  private end(ending: Ending): Decision | undefined {
    const known = this.runs.get(ending.run);
    if (known) return known.held.flush();
    if (ending.whole === undefined) return undefined;
    return this.decideWhole(this.run(ending.run), ending.whole.text);
  }

  /** A decision for a whole text at once: pushed, then flushed. */
  private decideWhole(run: RunText, text: string): Decision {
    const first = this.push(run, text);
    if (first.blocked) return first;
    const rest = run.held.flush();
    return { ...rest, out: first.out + rest.out, acted: [...first.acted, ...rest.acted] };
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
    for (const [run, { held }] of this.runs) {
      const decision = held.flush();
      if (this.note(decision)) return { outs, stop: { run, decision } };
      outs.push({ run, text: decision.out });
    }
    return { outs };
  }

  /** The text events of what was decided before a block: `decided`, then the blocked run's text before its match. */
  private stopped(decided: readonly Out[], { run, decision }: Stop): SseEvent[] {
    return this.textEvents([...decided, { run, text: decision.out }]);
  }

  /**
   * A rule blocked: `released` (the events and text decided before its match) goes out, then the API's
   * filtered end. Within an event `released` is returned and the end given to `control.end` (which writes
   * it after); outside one (the upstream's end) both go to `control.end`, in that order.
   */
  private block(released: SseEvent[], withinEvent = true): ClientEvents {
    this.blocked = true;
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

  private run(name: string): RunText {
    let run = this.runs.get(name);
    if (!run)
      this.runs.set(name, (run = { held: new HeldText(this.input.rules, this.input.bound), pushed: 0 }));
    return run;
  }
}
