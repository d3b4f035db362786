/**
 * A streamed Response as its client has seen it: the Response the stream opened with, and each output
 * item and content part, added and perhaps done. A blocked stream closes what is open with the text
 * released and ends with `response.incomplete`, whose output is what the client was given.
 */
import { isJsonObject, type JsonObject } from '../../../../../core/kit/json';
import type { Usage } from '../../../../../core/kit/plugin';
import { responsesUsage } from '../../../../../core/kit/upstream';
import type { Released } from './shape';

export const textRun = (output: number, content: number): string => `t${output}:${content}`;
export const argumentsRun = (output: number): string => `f${output}`;

interface PartSeen {
  part: JsonObject;
  textDone: boolean;
  done: boolean;
}

interface ItemSeen {
  item: JsonObject;
  readonly parts: Map<number, PartSeen>;
  argumentsDone: boolean;
  done: boolean;
}

/** One event the guard writes: its type and members, and the members the API writes after its number. */
export interface Made {
  readonly type: string;
  readonly members: JsonObject;
  readonly after?: JsonObject;
}

const indexOf = (value: unknown): number => (typeof value === 'number' ? value : 0);

export class OutputSeen {
  /** The Response as the stream opened it (`response.created`, `response.in_progress`). */
  private response: JsonObject = {};
  private readonly items = new Map<number, ItemSeen>();

  /** An event went to the client. */
  note(payload: JsonObject): void {
    const item = this.items.get(indexOf(payload.output_index));
    const part = item?.parts.get(indexOf(payload.content_index));
    switch (payload.type) {
      case 'response.created':
      case 'response.in_progress':
        if (isJsonObject(payload.response)) this.response = payload.response;
        break;
      case 'response.output_item.added':
        if (isJsonObject(payload.item))
          this.items.set(indexOf(payload.output_index), {
            item: payload.item,
            parts: new Map(),
            argumentsDone: false,
            done: false,
          });
        break;
      case 'response.content_part.added':
        if (isJsonObject(payload.part))
          item?.parts.set(indexOf(payload.content_index), {
            part: payload.part,
            textDone: false,
            done: false,
          });
        break;
      case 'response.output_text.done':
        if (part) part.textDone = true;
        break;
      case 'response.content_part.done':
        if (part && isJsonObject(payload.part)) Object.assign(part, { part: payload.part, done: true });
        break;
      case 'response.function_call_arguments.done':
        if (item) item.argumentsDone = true;
        break;
      case 'response.output_item.done':
        if (item && isJsonObject(payload.item)) Object.assign(item, { item: payload.item, done: true });
    }
  }

  /** The events that close every open part and item with what was released, then `response.incomplete`. */
  blockedEnd(released: Released, usage: Usage): Made[] {
    const events: Made[] = [];
    const order = [...this.items.keys()].sort((a, b) => a - b);
    for (const output of order) {
      const seen = this.items.get(output)!;
      if (!seen.done) events.push(...closeItem(seen, output, released));
    }
    const output = order.map((at) => this.items.get(at)!.item);
    const response = {
      ...this.response,
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
      output,
      usage: responsesUsage(usage),
    };
    events.push({ type: 'response.incomplete', members: { response } });
    return events;
  }
}

/** The done events of an item left open, its text as released; the item, so closed, is kept as the client's. */
function closeItem(seen: ItemSeen, output: number, released: Released): Made[] {
  const events: Made[] = [];
  const at = { item_id: seen.item.id, output_index: output };
  let closed: JsonObject = { ...seen.item, status: 'incomplete' };
  if (seen.item.type === 'message') {
    const content: JsonObject[] = [];
    for (const [index, part] of [...seen.parts].sort(([a], [b]) => a - b)) {
      if (!part.done)
        events.push(...closePart(part, { ...at, content_index: index }, released(textRun(output, index))));
      content.push(part.part);
    }
    closed = { ...closed, content };
  } else if (seen.item.type === 'function_call') {
    const args = released(argumentsRun(output));
    if (!seen.argumentsDone)
      events.push({ type: 'response.function_call_arguments.done', members: { arguments: args, ...at } });
    closed = { ...closed, arguments: args };
  }
  Object.assign(seen, { item: closed, done: true });
  events.push({ type: 'response.output_item.done', members: { item: closed, output_index: output } });
  return events;
}

/** The done events of an open content part, with the text released; the part is kept as closed. */
function closePart(part: PartSeen, at: JsonObject, text: string): Made[] {
  const events: Made[] = [];
  const isText = part.part.type === 'output_text';
  if (isText && !part.textDone) {
    const { content_index, item_id, output_index } = at;
    events.push({
      type: 'response.output_text.done',
      members: { content_index, item_id, logprobs: [], output_index },
      after: { text },
    });
  }
  if (isText) part.part = { ...part.part, text, ...('logprobs' in part.part ? { logprobs: [] } : {}) };
  Object.assign(part, { textDone: true, done: true });
  const { content_index, item_id, output_index } = at;
  events.push({
    type: 'response.content_part.done',
    members: { content_index, item_id, output_index, part: part.part },
  });
  return events;
}
