/**
 * The Responses API's stream: a message part's `response.output_text.delta`s are one run, a function
 * call's `response.function_call_arguments.delta`s another (reasoning is not read). The done events
 * repeat a run's whole text (the text done, the part done, the item done, the Response's output at the
 * end): each is written with what the client was released, so no held or masked text goes out in them,
 * and the first of them ends the run. A blocked stream closes its open part and item and ends with
 * `response.incomplete`, `incomplete_details.reason: "content_filter"`.
 */
import { isJsonObject, type JsonObject } from '../../../../../core/kit/json';
import type { SseEvent } from '../../../../../core/kit/plugin';
import { argumentsRun, OutputSeen, textRun, type Made } from './responses-output';
import { Sequence } from './sequence';
import type { BlockedEnd, Ending, EventView, Piece, StreamShape } from './shape';
import { madeEvent } from './made-event';

const indexOf = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** A text the event carries in `holder[member]`, to be replaced by another (logprobs with it: they spell the old). */
function textAt(holder: JsonObject, member: string): { text: string; put(text: string): void } | undefined {
  const text = holder[member];
  if (typeof text !== 'string') return undefined;
  const put = (next: string): void => {
    holder[member] = next;
    if (Array.isArray(holder.logprobs) && holder.logprobs.length > 0) holder.logprobs = [];
  };
  return { text, put };
}

const piece = (run: string, holder: JsonObject, member: string): Piece[] => {
  const at = textAt(holder, member);
  return at ? [{ run, ...at }] : [];
};

const ending = (run: string, holder: unknown, member: string): Ending[] => {
  const whole = isJsonObject(holder) ? textAt(holder, member) : undefined;
  return whole ? [{ run, whole }] : [];
};

/** The texts an output item repeats: a message's text parts, a function call's arguments. */
function itemEnds(item: unknown, output: number): Ending[] {
  if (!isJsonObject(item)) return [];
  if (item.type === 'function_call') return ending(argumentsRun(output), item, 'arguments');
  if (item.type !== 'message' || !Array.isArray(item.content)) return [];
  return item.content.flatMap((part, content) =>
    isJsonObject(part) && part.type === 'output_text' ? ending(textRun(output, content), part, 'text') : [],
  );
}

/** What an event adds to a run, or repeats of runs. */
function view(p: JsonObject): EventView {
  const output = indexOf(p.output_index);
  const text = textRun(output, indexOf(p.content_index));
  const none = { pieces: [], ends: [], bare: false };
  switch (p.type) {
    case 'response.output_text.delta':
      return { ...none, pieces: piece(text, p, 'delta'), bare: true };
    case 'response.function_call_arguments.delta':
      return { ...none, pieces: piece(argumentsRun(output), p, 'delta'), bare: true };
    case 'response.output_text.done':
      return { ...none, ends: ending(text, p, 'text') };
    case 'response.function_call_arguments.done':
      return { ...none, ends: ending(argumentsRun(output), p, 'arguments') };
    case 'response.content_part.done':
      return isJsonObject(p.part) && p.part.type === 'output_text'
        ? { ...none, ends: ending(text, p.part, 'text') }
        : none;
    case 'response.output_item.done':
      return { ...none, ends: itemEnds(p.item, output) };
    case 'response.completed':
    case 'response.incomplete':
    case 'response.failed': {
      const out = isJsonObject(p.response) && Array.isArray(p.response.output) ? p.response.output : [];
      return { ...none, ends: out.flatMap((item, at) => itemEnds(item, at)) };
    }
    default:
      return none;
  }
}

export class ResponsesShape implements StreamShape {
  private readonly sequence = new Sequence();
  private readonly seen = new OutputSeen();
  /** The item each run's deltas named, for the deltas written for it. */
  private readonly itemIds = new Map<string, unknown>();

  read(payload: JsonObject): EventView {
    this.sequence.reading(payload);
    const read = view(payload);
    for (const { run } of read.pieces) this.itemIds.set(run, payload.item_id);
    return read;
  }

  closes(): boolean {
    return false;
  }

  passing(payload: JsonObject): boolean {
    this.seen.note(payload);
    return this.sequence.passing(payload);
  }

  textEvent(run: string, text: string): SseEvent {
    const item_id = this.itemIds.get(run);
    const [output, content] = run.slice(1).split(':').map(Number) as [number, number | undefined];
    if (content === undefined)
      return this.made({
        type: 'response.function_call_arguments.delta',
        members: { delta: text, item_id, output_index: output },
      });
    return this.made({
      type: 'response.output_text.delta',
      members: { content_index: content, delta: text, item_id, logprobs: [], output_index: output },
    });
  }

  blockedEnd({ released, usage }: BlockedEnd): SseEvent[] {
    return this.seen.blockedEnd(released, usage).map((event) => this.made(event));
  }

  /** An event of the guard's own, numbered after the last one sent. */
  private made({ type, members, after }: Made): SseEvent {
    return madeEvent({ type, ...members, sequence_number: this.sequence.added(), ...after }, true);
  }
}
