/**
 * The output items of a streamed Response, each writing its own events as the API orders them: an item
 * is added, its content parts added, streamed as deltas and done, then the item is done. A message's
 * parts are text or refusal, a new part starting when the kind changes; a reasoning item holds one
 * `reasoning_text` part (output-items.ts says why not a summary); a function call streams its arguments.
 */
import { flatString, type JsonObject } from '../../../core/kit/json';
import type { EventSink } from './event-sink';
import {
  functionCallItem,
  type FunctionCall,
  type ItemStatus,
  messageItem,
  messageItemJson,
  type MessagePart,
  partJsonText,
  reasoningItem,
  reasoningPart,
} from './output-items';

export interface StreamItem {
  readonly outputIndex: number;
  readonly open: boolean;
  /** The item as the Response's `output` holds it. */
  snapshot(status: ItemStatus): JsonObject;
  /** The same as JSON. */
  json(status: ItemStatus): string;
  /** Writes the item's closing events, with `status` on the done item. */
  close(sink: EventSink, status: ItemStatus): void;
}

/**
 * What every item does alike: once closed, its JSON is kept, so the Response that ends the stream
 * carries the item without serialising it (and its whole text) again.
 */
abstract class ItemStream implements StreamItem {
  open = true;
  private closed: { readonly status: ItemStatus; readonly json: string } | undefined;
  constructor(
    readonly id: string,
    /** The id as JSON, written into each of the item's events. */
    protected readonly idJson: string,
    readonly outputIndex: number,
  ) {}

  abstract snapshot(status: ItemStatus): JsonObject;
  abstract close(sink: EventSink, status: ItemStatus): void;

  json(status: ItemStatus): string {
    const { closed } = this;
    return closed?.status === status ? closed.json : this.currentJson(status);
  }

  /** The item as JSON as it stands: its snapshot serialised, unless the item has it cheaper. */
  protected currentJson(status: ItemStatus): string {
    return JSON.stringify(this.snapshot(status));
  }

  /** `response.output_item.done`, which closes the item. */
  protected done(sink: EventSink, status: ItemStatus): void {
    const json = this.currentJson(status);
    this.closed = { status, json };
    sink.emitJson('response.output_item.done', `"item":${json},"output_index":${this.outputIndex}`);
    this.open = false;
  }
}

const TEXT_DELTA = 'response.output_text.delta';

/** A text delta's JSON up to its text, made flat once. */
const deltaHead = (contentIndex: number): string =>
  flatString(`{"type":"${TEXT_DELTA}","content_index":${contentIndex},"delta":`);
/** The commonest ones, the same in every stream. */
const DELTA_HEADS = [0, 1, 2, 3].map(deltaHead);

/** Members every event about an item carries. */
const at = (item: { id: string; outputIndex: number }) => ({
  item_id: item.id,
  output_index: item.outputIndex,
});

/** A text delta's JSON around its `delta`, the same for every delta of one part (emitOpen). */
interface DeltaFrame {
  readonly head: string;
  readonly tail: string;
}

export class MessageStream extends ItemStream {
  private readonly parts: MessagePart[] = [];
  /** The closed parts as JSON, in order. */
  private readonly partsJson: string[] = [];
  /** The open text part's deltas' frame. */
  private frame: DeltaFrame | undefined;

  constructor(id: string, idJson: string, outputIndex: number, sink: EventSink) {
    super(id, idJson, outputIndex);
    const item = messageItemJson(this.idJson, [], 'in_progress');
    sink.emitJson('response.output_item.added', `"item":${item},"output_index":${outputIndex}`);
  }

  /** More of the message; `deltaJson` is `delta` as JSON when the caller has it already. */
  append(kind: MessagePart['kind'], delta: string, sink: EventSink, deltaJson?: string): void {
    let part = this.parts.at(-1);
    if (part?.kind !== kind) {
      if (part) this.closePart(sink);
      part = { kind, text: '' };
      this.parts.push(part);
      this.partEvent(sink, 'response.content_part.added', this.parts.length - 1, partJsonText(kind, '""'));
    }
    part.text += delta;
    const contentIndex = this.parts.length - 1;
    if (kind === 'output_text') {
      const frame = (this.frame ??= this.deltaFrame(contentIndex));
      sink.emitOpen(TEXT_DELTA, `${frame.head}${deltaJson ?? JSON.stringify(delta)}${frame.tail}`);
    } else sink.emit('response.refusal.delta', { content_index: contentIndex, delta, ...at(this) });
  }

  /** The JSON of the part's deltas around their text, as `emitJson` writes them, each made flat once. */
  private deltaFrame(contentIndex: number): DeltaFrame {
    return {
      head: DELTA_HEADS[contentIndex] ?? deltaHead(contentIndex),
      tail: flatString(
        `,"item_id":${this.idJson},"logprobs":[],"output_index":${this.outputIndex},"sequence_number":`,
      ),
    };
  }

  close(sink: EventSink, status: ItemStatus): void {
    if (this.parts.length > 0) this.closePart(sink);
    this.done(sink, status);
  }

  snapshot(status: ItemStatus): JsonObject {
    return messageItem(this.id, this.parts, status);
  }

  protected override currentJson(status: ItemStatus): string {
    return this.partsJson.length === this.parts.length
      ? messageItemJson(this.idJson, this.partsJson, status)
      : super.currentJson(status);
  }

  /** The open part's done events; its text is serialised once for them and the item. */
  private closePart(sink: EventSink): void {
    this.frame = undefined;
    const contentIndex = this.parts.length - 1;
    const { kind, text } = this.parts[contentIndex]!;
    const textJson = JSON.stringify(text);
    const about = this.aboutPart(contentIndex);
    const index = `"output_index":${this.outputIndex}`;
    if (kind === 'output_text')
      sink.emitJson('response.output_text.done', `${about},"logprobs":[],${index},"text":${textJson}`);
    else sink.emitJson('response.refusal.done', `${about},${index},"refusal":${textJson}`);
    const part = partJsonText(kind, textJson);
    this.partsJson.push(part);
    this.partEvent(sink, 'response.content_part.done', contentIndex, part);
  }

  /** What every event about one of the message's parts opens with: the part's index and the item's id. */
  private aboutPart(contentIndex: number): string {
    return `"content_index":${contentIndex},"item_id":${this.idJson}`;
  }

  /** `response.content_part.added` or `.done`: the part's place, and the part as JSON. */
  private partEvent(sink: EventSink, type: string, contentIndex: number, part: string): void {
    sink.emitJson(type, `${this.aboutPart(contentIndex)},"output_index":${this.outputIndex},"part":${part}`);
  }
}

export class ReasoningStream extends ItemStream {
  private text = '';
  /** The upstream's seal of the reasoning, kept when the client asked for it (output-items.ts). */
  sealed: string | undefined;

  constructor(id: string, idJson: string, outputIndex: number, sink: EventSink) {
    super(id, idJson, outputIndex);
    sink.emit('response.output_item.added', { item: reasoningItem(id), output_index: outputIndex });
    sink.emit('response.content_part.added', { content_index: 0, ...at(this), part: reasoningPart('') });
  }

  append(delta: string, sink: EventSink): void {
    this.text += delta;
    const members = `"content_index":0,"delta":${JSON.stringify(delta)},"item_id":${this.idJson},"output_index":${this.outputIndex}`;
    sink.emitJson('response.reasoning_text.delta', members);
  }

  close(sink: EventSink, status: ItemStatus): void {
    const { text } = this;
    sink.emit('response.reasoning_text.done', { content_index: 0, ...at(this), text });
    sink.emit('response.content_part.done', { content_index: 0, ...at(this), part: reasoningPart(text) });
    this.done(sink, status);
  }

  snapshot(): JsonObject {
    return reasoningItem(this.id, this.text, this.sealed);
  }
}

export class CallStream extends ItemStream {
  constructor(
    id: string,
    idJson: string,
    outputIndex: number,
    private readonly call: FunctionCall,
    sink: EventSink,
  ) {
    super(id, idJson, outputIndex);
    const added: FunctionCall = { ...call, args: '' };
    sink.emit('response.output_item.added', {
      item: functionCallItem(id, added, 'in_progress'),
      output_index: outputIndex,
    });
  }

  /** More of the call: a name where the first chunk had none, and arguments. */
  append(name: string | undefined, args: string, sink: EventSink): void {
    if (name && !this.call.name) this.call.name = name;
    if (args === '') return;
    this.call.args += args;
    sink.emit('response.function_call_arguments.delta', { delta: args, ...at(this) });
  }

  close(sink: EventSink, status: ItemStatus): void {
    const { item_id, output_index } = at(this);
    sink.emit('response.function_call_arguments.done', {
      arguments: this.call.args,
      item_id,
      name: this.call.name,
      output_index,
    });
    this.done(sink, status);
  }

  snapshot(status: ItemStatus): JsonObject {
    return functionCallItem(this.id, this.call, status);
  }
}
