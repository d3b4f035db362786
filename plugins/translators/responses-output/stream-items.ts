/**
 * The output items of a streamed Response, each writing its own events as the API orders them: an item
 * is added, its content parts added, streamed as deltas and done, then the item is done. A message's
 * parts are text or refusal, a new part starting when the kind changes; a reasoning item holds one
 * `reasoning_text` part (output-items.ts says why not a summary); a function call streams its arguments.
 */
import type { JsonObject } from '../../../core/kit/json';
import type { EventSink } from './event-sink';
import {
  functionCallItem,
  type FunctionCall,
  type ItemStatus,
  messageItem,
  type MessagePart,
  partJson,
  reasoningItem,
  reasoningPart,
} from './output-items';

export interface StreamItem {
  readonly outputIndex: number;
  readonly open: boolean;
  /** The item as the Response's `output` holds it. */
  snapshot(status: ItemStatus): JsonObject;
  /** Writes the item's closing events, with `status` on the done item. */
  close(sink: EventSink, status: ItemStatus): void;
}

/** Members every event about an item carries. */
const at = (item: { id: string; outputIndex: number }) => ({
  item_id: item.id,
  output_index: item.outputIndex,
});

export class MessageStream implements StreamItem {
  open = true;
  private readonly parts: MessagePart[] = [];
  /** The item's id as JSON, written into every delta. */
  private readonly idJson: string;

  constructor(
    readonly id: string,
    readonly outputIndex: number,
    sink: EventSink,
  ) {
    this.idJson = JSON.stringify(id);
    sink.emit('response.output_item.added', {
      item: messageItem(id, [], 'in_progress'),
      output_index: outputIndex,
    });
  }

  append(kind: MessagePart['kind'], delta: string, sink: EventSink): void {
    let part = this.parts.at(-1);
    if (part?.kind !== kind) {
      if (part) this.closePart(sink);
      part = { kind, text: '' };
      this.parts.push(part);
      sink.emit('response.content_part.added', {
        content_index: this.parts.length - 1,
        ...at(this),
        part: partJson(part),
      });
    }
    part.text += delta;
    const contentIndex = this.parts.length - 1;
    if (kind === 'output_text') {
      const members = `"content_index":${contentIndex},"delta":${JSON.stringify(delta)},"item_id":${this.idJson},"logprobs":[],"output_index":${this.outputIndex}`;
      sink.emitJson('response.output_text.delta', members);
    } else sink.emit('response.refusal.delta', { content_index: contentIndex, delta, ...at(this) });
  }

  close(sink: EventSink, status: ItemStatus): void {
    if (this.parts.length > 0) this.closePart(sink);
    sink.emit('response.output_item.done', { item: this.snapshot(status), output_index: this.outputIndex });
    this.open = false;
  }

  snapshot(status: ItemStatus): JsonObject {
    return messageItem(this.id, this.parts, status);
  }

  private closePart(sink: EventSink): void {
    const contentIndex = this.parts.length - 1;
    const part = this.parts[contentIndex]!;
    const { item_id, output_index } = at(this);
    if (part.kind === 'output_text') {
      sink.emit('response.output_text.done', {
        content_index: contentIndex,
        item_id,
        logprobs: [],
        output_index,
        text: part.text,
      });
    } else
      sink.emit('response.refusal.done', {
        content_index: contentIndex,
        item_id,
        output_index,
        refusal: part.text,
      });
    sink.emit('response.content_part.done', {
      content_index: contentIndex,
      item_id,
      output_index,
      part: partJson(part),
    });
  }
}

export class ReasoningStream implements StreamItem {
  open = true;
  private text = '';
  /** The upstream's seal of the reasoning, kept when the client asked for it (output-items.ts). */
  sealed: string | undefined;

  constructor(
    readonly id: string,
    readonly outputIndex: number,
    sink: EventSink,
  ) {
    sink.emit('response.output_item.added', { item: reasoningItem(id), output_index: outputIndex });
    sink.emit('response.content_part.added', { content_index: 0, ...at(this), part: reasoningPart('') });
  }

  append(delta: string, sink: EventSink): void {
    this.text += delta;
    const members = `"content_index":0,"delta":${JSON.stringify(delta)},"item_id":${JSON.stringify(this.id)},"output_index":${this.outputIndex}`;
    sink.emitJson('response.reasoning_text.delta', members);
  }

  close(sink: EventSink): void {
    const { text } = this;
    sink.emit('response.reasoning_text.done', { content_index: 0, ...at(this), text });
    sink.emit('response.content_part.done', { content_index: 0, ...at(this), part: reasoningPart(text) });
    sink.emit('response.output_item.done', { item: this.snapshot(), output_index: this.outputIndex });
    this.open = false;
  }

  snapshot(): JsonObject {
    return reasoningItem(this.id, this.text, this.sealed);
  }
}

export class CallStream implements StreamItem {
  open = true;

  constructor(
    readonly id: string,
    readonly outputIndex: number,
    private readonly call: FunctionCall,
    sink: EventSink,
  ) {
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
    sink.emit('response.output_item.done', { item: this.snapshot(status), output_index });
    this.open = false;
  }

  snapshot(status: ItemStatus): JsonObject {
    return functionCallItem(this.id, this.call, status);
  }
}
