/**
 * A Responses stream, one request's state machine, whatever the upstream API: each translator reads its
 * upstream's events and drives this. The first upstream event opens the Response (`response.created`,
 * `response.in_progress`). Reasoning and text share one open item at a time, a switch from one to the
 * other closing it; each function call is an item of its own, open until the translator closes it or the
 * finish does. The finish closes every item, the last one `incomplete` when the answer was cut short; the
 * end writes `response.completed` (or `response.incomplete`), carrying the whole Response with the usage
 * the gateway metered. A failure ends it with the `error` event and `response.failed`.
 */
import type { SseEvent, Usage } from '../../../core/kit/plugin';
import { streamErrorPayload, type StreamError } from '../../apis/responses';
import { EventSink } from './event-sink';
import { responseError } from './failure';
import { COMPLETED, type Finish } from './finish';
import { ResponseIds } from './ids';
import type { FunctionCall, ItemStatus } from './output-items';
import { responseWriter, type ResponseEcho, type ResponseHead } from './response-object';
import { CallStream, MessageStream, ReasoningStream, type StreamItem } from './stream-items';

export type StreamOutcome = 'open' | 'completed' | 'failed';

const seconds = (): number => Math.floor(Date.now() / 1000);

/** The terminal event of a Response that ended as `status`. */
const TERMINAL_EVENTS: Readonly<Record<Finish['status'], string>> = {
  completed: 'response.completed',
  incomplete: 'response.incomplete',
};

export class ResponseStream {
  outcome: StreamOutcome = 'open';
  readonly sink = new EventSink();
  private head: { readonly ids: ResponseIds; readonly createdAt: number } | undefined;
  private readonly items: StreamItem[] = [];
  /** The open reasoning or message item, which the next piece of its kind extends. */
  private current: ReasoningStream | MessageStream | undefined;
  private finish: Finish | undefined;
  private readonly writeResponse: ReturnType<typeof responseWriter>;

  /** `upstreamPrefix`: the upstream's id prefix, which the Response's ids leave out (ids.ts). */
  constructor(
    echo: ResponseEcho,
    private readonly upstreamPrefix: RegExp,
  ) {
    this.writeResponse = responseWriter(echo);
  }

  /** Whether the Response has been opened (`start`). */
  get started(): boolean {
    return this.head !== undefined;
  }

  /** The events written since the last call. */
  take(): SseEvent[] {
    return this.sink.take();
  }

  /** `response.created` and `response.in_progress`, once, named after the upstream answer's id. */
  start(upstreamId?: unknown, createdAt?: unknown): void {
    if (this.head) return;
    const ids = new ResponseIds(upstreamId, this.upstreamPrefix);
    this.head = { ids, createdAt: typeof createdAt === 'number' ? createdAt : seconds() };
    // The same Response in both events: serialised once.
    const response = this.response({ status: 'in_progress' });
    this.sink.emitJson('response.created', response);
    this.sink.emitJson('response.in_progress', response);
  }

  /** The open reasoning item, or a new one after closing the open message. */
  reasoning(): ReasoningStream {
    if (this.current instanceof ReasoningStream) return this.current;
    this.closeCurrent();
    const index = this.items.length;
    const id = this.ids.item('reasoning', index);
    return this.opened(new ReasoningStream(id, this.ids.json(id), index, this.sink));
  }

  /** The open message item, or a new one after closing the open reasoning. */
  message(): MessageStream {
    if (this.current instanceof MessageStream) return this.current;
    this.closeCurrent();
    const index = this.items.length;
    const id = this.ids.item('message', index);
    return this.opened(new MessageStream(id, this.ids.json(id), index, this.sink));
  }

  /** A new function call item, after closing the open reasoning or message. */
  call(call: FunctionCall): CallStream {
    this.closeCurrent();
    const index = this.items.length;
    const id = this.ids.item('function_call', index);
    const stream = new CallStream(id, this.ids.json(id), index, call, this.sink);
    this.items.push(stream);
    return stream;
  }

  /** Closes the open reasoning or message item, complete. */
  closeCurrent(): void {
    if (this.current?.open) this.current.close(this.sink, 'completed');
    this.current = undefined;
  }

  /** The upstream's finish: every open item closes, the last one `incomplete` when it was cut short. */
  finished(finish: Finish): void {
    this.finish = finish;
    this.closeAll(finish);
  }

  /** The events for the stream's end, where the gateway's usage is known. */
  end(usage: Usage): void {
    this.start();
    const finish = this.finish ?? COMPLETED;
    this.closeAll(finish);
    const { status, details } = finish;
    const response = this.response({
      status,
      incompleteDetails: details,
      usage,
      ...(status === 'completed' ? { completedAt: seconds() } : {}),
    });
    this.sink.emitJson(TERMINAL_EVENTS[status], response);
    this.outcome = 'completed';
  }

  /** The events for a failure: the `error` event, then `response.failed` with what was produced so far. */
  fail(error: StreamError): void {
    this.start();
    this.sink.emit('error', streamErrorPayload(error));
    // What was being written when the stream failed is left incomplete.
    const response = this.response({ status: 'failed', error: responseError(error) }, 'incomplete');
    this.sink.emitJson('response.failed', response);
    this.outcome = 'failed';
  }

  private opened<T extends ReasoningStream | MessageStream>(item: T): T {
    this.items.push(item);
    this.current = item;
    return item;
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

  /**
   * The event member `"response":{…}`: the Response as it stands, items still open as `openAs`, closed
   * ones as they closed.
   */
  private response(
    state: Omit<ResponseHead, 'idJson' | 'createdAt'>,
    openAs: ItemStatus = 'in_progress',
  ): string {
    const finish = this.finish ?? COMPLETED;
    const last = this.items.at(-1);
    const output = this.items.map((item) =>
      item.json(item.open ? openAs : this.statusOf(item, last, finish)),
    );
    const head = { idJson: this.ids.responseJson, createdAt: this.head!.createdAt, ...state };
    return `"response":${this.writeResponse(head, `[${output.join(',')}]`)}`;
  }
}
