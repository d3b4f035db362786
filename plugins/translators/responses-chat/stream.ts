/**
 * A chat completions stream as a Responses stream: reads each chat chunk and drives the Response's
 * state machine (responses-output/response-stream.ts). A delta's reasoning, text, refusal and tool calls
 * go to output items; each tool call (by its chunk `index`) is an item of its own, open until the
 * finish, so a vendor that interleaves calls' arguments is followed. The finish reason closes every
 * item; `[DONE]` ends the Response with the usage the gateway metered.
 */
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import type { SseEvent, Usage } from '../../../core/kit/plugin';
import type { StreamError } from '../../apis/responses';
import { upstreamStreamError } from '../responses-output/failure';
import { eventJson, type UpstreamStream } from '../responses-output/reader';
import { ResponseStream } from '../responses-output/response-stream';
import type { ResponseEcho } from '../responses-output/response-object';
import type { CallStream } from '../responses-output/stream-items';
import { finishOf } from './finish';
import { argumentsText, CHAT_ID_PREFIX } from './json-answer';
import { PlainChunks, type TextDelta } from './content-delta';

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

export class ChatStreamTranslator implements UpstreamStream {
  private readonly response: ResponseStream;
  private readonly calls = new Map<number, CallStream>();
  /** The plainest chunks, read from their text. */
  private readonly plain = new PlainChunks();

  constructor(echo: ResponseEcho) {
    this.response = new ResponseStream(echo, CHAT_ID_PREFIX);
  }

  get outcome(): ResponseStream['outcome'] {
    return this.response.outcome;
  }

  /** The events for one chat event: a chunk, an in-stream error chunk, or `[DONE]`. */
  translate(ev: SseEvent, usage: () => Usage): SseEvent[] {
    if (ev.data.startsWith('[DONE]')) return this.end(usage());
    const plain = this.response.started ? this.plainly(ev.data) : this.opened(ev.data);
    if (plain) return plain;
    const chunk = eventJson(ev);
    if (!chunk) return [];
    if (chunk.error !== undefined) return this.fail(upstreamStreamError(chunk.error));
    return this.chunk(chunk);
  }

  /** The events for one chat chunk (an object without `error`). */
  chunk(chunk: JsonObject): SseEvent[] {
    this.response.start(chunk.id, chunk.created);
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find(isJsonObject) : undefined;
    if (choice) {
      if (isJsonObject(choice.delta)) this.delta(choice.delta);
      if (nonEmpty(choice.finish_reason)) this.response.finished(finishOf(choice.finish_reason));
    }
    return this.response.take();
  }

  /**
   * The events of a chunk of an open Response read from its text (PlainChunks): most carry a piece of
   * text and nothing else; one finishes the choice; the usage chunk adds nothing. Undefined for any other.
   */
  private plainly(data: string): SseEvent[] | undefined {
    const text = this.plain.text(data);
    if (text) return this.text(text);
    const reason = this.plain.finish(data);
    if (reason !== undefined) this.response.finished(finishOf(reason));
    else if (!this.plain.empty(data)) return undefined;
    return this.response.take();
  }

  /** The Response's opening events, when the answer's first chunk says nothing but its id, time and role. */
  private opened(data: string): SseEvent[] | undefined {
    const opening = this.plain.opening(data);
    if (opening === undefined) return undefined;
    this.response.start(opening.id, opening.created);
    return this.response.take();
  }

  /** The events for a chunk whose delta is a piece of text alone. */
  private text({ text, json }: TextDelta): SseEvent[] {
    if (text !== '') this.response.message().append('output_text', text, this.response.sink, json);
    return this.response.take();
  }

  /** The events for the stream's end (`[DONE]`), where the gateway's usage is known. */
  end(usage: Usage): SseEvent[] {
    this.response.end(usage);
    return this.response.take();
  }

  /** The events for a failure: the `error` event, then `response.failed` with what was produced so far. */
  fail(error: StreamError): SseEvent[] {
    this.response.fail(error);
    return this.response.take();
  }

  private delta(delta: JsonObject): void {
    const {
      response,
      response: { sink },
    } = this;
    if (nonEmpty(delta.reasoning_content)) response.reasoning().append(delta.reasoning_content, sink);
    if (nonEmpty(delta.content)) response.message().append('output_text', delta.content, sink);
    if (nonEmpty(delta.refusal)) response.message().append('refusal', delta.refusal, sink);
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((call: unknown, i) => {
        if (isJsonObject(call)) this.toolCall(call, i);
      });
    }
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
      const callId = nonEmpty(call.id) ? call.id : `call_${key}`;
      stream = this.response.call({ callId, name: name ?? '', args: '' });
      this.calls.set(key, stream);
    }
    stream.append(name, argumentsText(fn.arguments), this.response.sink);
  }
}
