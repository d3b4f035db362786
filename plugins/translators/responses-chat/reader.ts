/**
 * The reader a Responses client's request gets when a chat family serves it: it wraps the family's own
 * reader, which meters usage and may drop, change or multiply chat chunks, and translates what that
 * reader lets through into the Responses API. Usage is always the family reader's, so the metering of a
 * translated request is the metering of the chat request it became; the Response shows the same
 * figures. The stream is complete at `response.completed` or `response.incomplete` and failed at
 * `response.failed`.
 */
import {
  contractErrorBody,
  eventsOf,
  type ClientEvents,
  type GatewayError,
  isJsonObject,
  type JsonObject,
  type ResponseReader,
  type SseEvent,
  type TranslatingReader,
  type Usage,
  type VendorError,
} from '../../../core/kit';
import { frameOf } from './event-sink';
import { gatewayStreamError, upstreamStreamError } from './failure';
import { responseFromCompletion } from './json-answer';
import type { ResponseEcho } from './response-object';
import { ChatStreamTranslator } from './stream';

export class ResponsesFromChatReader implements TranslatingReader {
  readonly translates = true;
  private readonly stream: ChatStreamTranslator;

  constructor(
    private readonly inner: ResponseReader,
    private readonly echo: ResponseEcho,
  ) {
    this.stream = new ChatStreamTranslator(echo);
  }

  get complete(): boolean {
    return this.stream.outcome === 'completed';
  }

  get failed(): boolean {
    return this.stream.outcome === 'failed';
  }

  json(body: JsonObject): { usage: Usage; replace: JsonObject } {
    const { usage, replace } = this.inner.json(body);
    return { usage, replace: responseFromCompletion(replace ?? body, usage, this.echo) };
  }

  event(ev: SseEvent): ClientEvents {
    const out: SseEvent[] = [];
    for (const chat of eventsOf(this.inner.event(ev))) {
      if (this.stream.outcome !== 'open') break; // the Response has ended: nothing may follow
      out.push(...this.translate(chat));
    }
    return out.length > 0 ? out : null;
  }

  usage(): Usage {
    return this.inner.usage();
  }

  /** Responses errors are OpenAI's shape: the family's mapping, or the gateway's default. */
  errorBody(answer: VendorError): JsonObject | undefined {
    return this.inner.errorBody ? this.inner.errorBody(answer) : contractErrorBody(answer);
  }

  /**
   * The frames that end this stream when the gateway cuts it (an upstream cut or gone idle): the `error`
   * event numbered in this stream, and `response.failed`. Empty once the Response has ended.
   */
  errorFrame(error: GatewayError): string {
    if (this.stream.outcome !== 'open') return '';
    return this.stream.fail(gatewayStreamError(error)).map(frameOf).join('');
  }

  private translate(ev: SseEvent): SseEvent[] {
    if (ev.data.startsWith('[DONE]')) return this.stream.end(this.inner.usage());
    let chunk: unknown;
    try {
      chunk = JSON.parse(ev.data);
    } catch {
      return []; // not JSON: nothing a Responses client could read
    }
    if (!isJsonObject(chunk)) return [];
    if (chunk.error !== undefined) return this.stream.fail(upstreamStreamError(chunk.error));
    return this.stream.chunk(chunk);
  }
}
