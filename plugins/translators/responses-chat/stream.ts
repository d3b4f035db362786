/**
 * A chat completions stream as a Responses stream, one request's state machine. The first chunk opens
 * the Response (`response.created`, `response.in_progress`). A delta's reasoning, text, refusal and tool
 * calls go to output items (stream-items.ts): reasoning and text share one open item at a time, a switch
 * from one to the other closing it; each tool call (by its chunk `index`) is an item of its own, open
 * until the finish, so a vendor that interleaves calls' arguments is followed. The finish reason closes
 * every item; `[DONE]` ends the Response with `response.completed` (or `response.incomplete`), carrying
 * the whole Response with the usage the gateway metered. A failure ends it with the `error` event and
 * `response.failed`.
 */
import { isJsonObject, type JsonObject, type SseEvent, type Usage } from '../../../core/kit';
import { streamErrorPayload, type StreamError } from '../../apis/responses';
import { EventSink } from './event-sink';
import { responseError } from './failure';
import { type Finish, finishOf } from './finish';
import { ResponseIds } from './ids';
import { argumentsText } from './json-answer';
import type { ItemStatus } from './output-items';
import { responseObject, type ResponseEcho, type ResponseState } from './response-object';
import { CallStream, MessageStream, ReasoningStream, type StreamItem } from './stream-items';
import { responsesUsage } from './usage';

export type StreamOutcome = 'open' | 'completed' | 'failed';

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';
const seconds = (): number => Math.floor(Date.now() / 1000);

/** The terminal event of a Response that ended as `status`. */
const TERMINAL_EVENTS: Readonly<Record<Finish['status'], string>> = {
  completed: 'response.completed',
  incomplete: 'response.incomplete',
};

export class ChatStreamTranslator {
  outcome: StreamOutcome = 'open';
  private readonly sink = new EventSink();
  private head: { readonly ids: ResponseIds; readonly createdAt: number } | undefined;
  private readonly items: StreamItem[] = [];
  /** The open reasoning or message item, which the next delta of its kind extends. */
  private current: ReasoningStream | MessageStream | undefined;
  private readonly calls = new Map<number, CallStream>();
  private finish: Finish | undefined;

  constructor(private readonly echo: ResponseEcho) {}

  /** The events for one chat chunk (an object without `error`). */
  chunk(chunk: JsonObject): SseEvent[] {
    this.start(chunk);
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find(isJsonObject) : undefined;
    if (choice) {
      if (isJsonObject(choice.delta)) this.delta(choice.delta);
      if (nonEmpty(choice.finish_reason)) this.finished(finishOf(choice.finish_reason));
    }
    return this.sink.take();
  }

  /** The events for the stream's end (`[DONE]`), where the gateway's usage is known. */
  end(usage: Usage): SseEvent[] {
    this.start({});
    const finish = this.finish ?? finishOf(undefined);
    this.closeAll(finish);
    const { status, details } = finish;
    const response = this.response({
      status,
      incompleteDetails: details,
      usage: responsesUsage(usage),
      ...(status === 'completed' ? { completedAt: seconds() } : {}),
    });
    this.sink.emit(TERMINAL_EVENTS[status], { response });
    this.outcome = 'completed';
    return this.sink.take();
  }

  /** The events for a failure: the `error` event, then `response.failed` with what was produced so far. */
  fail(error: StreamError): SseEvent[] {
    this.start({});
    this.sink.emit('error', streamErrorPayload(error));
    // What was being written when the stream failed is left incomplete.
    const response = this.response({ status: 'failed', error: responseError(error) }, 'incomplete');
    this.sink.emit('response.failed', { response });
    this.outcome = 'failed';
    return this.sink.take();
  }

  /** `response.created` and `response.in_progress`, once, named after the first chunk's id. */
  private start(chunk: JsonObject): void {
    if (this.head) return;
    const createdAt = typeof chunk.created === 'number' ? chunk.created : seconds();
    this.head = { ids: new ResponseIds(chunk.id), createdAt };
    const response = this.response({ status: 'in_progress' });
    this.sink.emit('response.created', { response });
    this.sink.emit('response.in_progress', { response });
  }

  private delta(delta: JsonObject): void {
    if (nonEmpty(delta.reasoning_content)) this.reasoning().append(delta.reasoning_content, this.sink);
    if (nonEmpty(delta.content)) this.message().append('output_text', delta.content, this.sink);
    if (nonEmpty(delta.refusal)) this.message().append('refusal', delta.refusal, this.sink);
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((call: unknown, i) => {
        if (isJsonObject(call)) this.toolCall(call, i);
      });
    }
  }

  private reasoning(): ReasoningStream {
    if (this.current instanceof ReasoningStream) return this.current;
    this.closeCurrent();
    const index = this.items.length;
    return this.opened(new ReasoningStream(this.ids.item('reasoning', index), index, this.sink));
  }

  private message(): MessageStream {
    if (this.current instanceof MessageStream) return this.current;
    this.closeCurrent();
    const index = this.items.length;
    return this.opened(new MessageStream(this.ids.item('message', index), index, this.sink));
  }

  private opened<T extends ReasoningStream | MessageStream>(item: T): T {
    this.items.push(item);
    this.current = item;
    return item;
  }

  /**
   * A tool call's piece. Chat names the call by its `index` (a vendor that leaves it out sends each call
   * whole, so its place in the chunk stands in); the first piece carries the call's id and name.
   */
  private toolCall(call: JsonObject, position: number): void {
    const key = typeof call.index === 'number' ? call.index : position;
    const fn = isJsonObject(call.function) ? call.function : {};
    const name = typeof fn.name === 'string' ? fn.name : undefined;
    let stream = this.calls.get(key);
    if (!stream) {
      this.closeCurrent();
      const index = this.items.length;
      const callId = nonEmpty(call.id) ? call.id : `call_${key}`;
      stream = new CallStream(
        this.ids.item('function_call', index),
        index,
        { callId, name: name ?? '', args: '' },
        this.sink,
      );
      this.items.push(stream);
      this.calls.set(key, stream);
    }
    stream.append(name, argumentsText(fn.arguments), this.sink);
  }

  private closeCurrent(): void {
    if (this.current?.open) this.current.close(this.sink, 'completed');
    this.current = undefined;
  }

  /** The finish: every open item closes, the last one `incomplete` when the answer was cut short. */
  private finished(finish: Finish): void {
    this.finish = finish;
    this.closeAll(finish);
  }

  private closeAll(finish: Finish): void {
    const last = this.items.at(-1);
    for (const item of this.items) {
      if (item.open) item.close(this.sink, this.statusOf(item, last, finish));
    }
    this.current = undefined;
  }

  private statusOf(item: StreamItem, last: StreamItem | undefined, finish: Finish): ItemStatus {
    return item === last && finish.status === 'incomplete' ? 'incomplete' : 'completed';
  }

  private get ids(): ResponseIds {
    return this.head!.ids;
  }

  /** The Response as it stands: items still open as `openAs`, closed ones as they closed. */
  private response(
    state: Omit<ResponseState, 'id' | 'createdAt' | 'output'>,
    openAs: ItemStatus = 'in_progress',
  ): JsonObject {
    const finish = this.finish ?? finishOf(undefined);
    const last = this.items.at(-1);
    const output = this.items.map((item) =>
      item.snapshot(item.open ? openAs : this.statusOf(item, last, finish)),
    );
    return responseObject(
      { id: this.ids.response, createdAt: this.head!.createdAt, output, ...state },
      this.echo,
    );
  }
}
