/**
 * A messages stream as a Responses stream: reads each event and drives the Response's state machine
 * (responses-output/response-stream.ts). `message_start` opens the Response; each content block is
 * opened by `content_block_start`, grows by its deltas and ends at `content_block_stop`: a `thinking`
 * block is a reasoning item (its `signature_delta` the item's seal, kept when the client asked for it),
 * `text` blocks write the message, a `tool_use` block is a function call whose arguments stream as
 * `input_json_delta`. `message_delta` carries the stop reason, which closes every item; `message_stop`
 * ends the Response with the usage the gateway metered; an `error` event fails it. Pings say nothing.
 */
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import type { SseEvent, Usage } from '../../../core/kit/plugin';
import type { StreamError } from '../../apis/responses';
import { upstreamStreamError } from '../responses-output/failure';
import { eventJson, type UpstreamStream } from '../responses-output/reader';
import type { ResponseEcho } from '../responses-output/response-object';
import { ResponseStream } from '../responses-output/response-stream';
import { finishOf, MESSAGE_ID_PREFIX } from './finish';

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A content block being read: what each of its deltas (by type) writes, and what its end does. */
interface Block {
  readonly deltas: Readonly<Record<string, (delta: JsonObject) => void>>;
  stop(): void;
}

type Handler = (t: MessagesStreamTranslator, data: JsonObject, usage: () => Usage) => void;

/** What each stream event does to the Response; any other (`ping`, a newer event) does nothing. */
const ON_EVENT: Readonly<Record<string, Handler>> = {
  message_start: (t, data) => {
    t.response.start(isJsonObject(data.message) ? data.message.id : undefined);
  },
  content_block_start: (t, data) => {
    if (isJsonObject(data.content_block)) t.open(Number(data.index), data.content_block);
  },
  content_block_delta: (t, data) => {
    if (isJsonObject(data.delta)) t.delta(Number(data.index), data.delta);
  },
  content_block_stop: (t, data) => t.stop(Number(data.index)),
  message_delta: (t, data) => {
    const delta = isJsonObject(data.delta) ? data.delta : {};
    if (delta.stop_reason != null) t.response.finished(finishOf(delta.stop_reason));
  },
  message_stop: (t, _data, usage) => t.response.end(usage()),
  error: (t, data) => t.response.fail(upstreamStreamError(data.error)),
};

/** A block's opening, by its type: the item it writes, opened. */
const OPEN: Readonly<Record<string, (t: MessagesStreamTranslator, block: JsonObject) => Block>> = {
  thinking: (t) => {
    const item = t.response.reasoning();
    return {
      deltas: {
        thinking_delta: (d) => {
          if (str(d.thinking) !== '') item.append(str(d.thinking), t.response.sink);
        },
        signature_delta: (d) => {
          if (t.sealed) item.sealed = str(d.signature);
        },
      },
      stop: () => t.response.closeCurrent(),
    };
  },
  // Text stays open at its block's end, for the text blocks that may follow in the same message.
  text: (t, block) => {
    const item = t.response.message();
    const append = (text: string) => {
      if (text !== '') item.append('output_text', text, t.response.sink);
    };
    append(str(block.text));
    return { deltas: { text_delta: (d) => append(str(d.text)) }, stop: () => undefined };
  },
  // A call whose input streamed nothing gets its opening input, as JSON.
  tool_use: (t, block) => {
    const item = t.response.call({ callId: str(block.id), name: str(block.name), args: '' });
    let streamed = false;
    return {
      deltas: {
        input_json_delta: (d) => {
          streamed ||= str(d.partial_json) !== '';
          item.append(undefined, str(d.partial_json), t.response.sink);
        },
      },
      stop: () => {
        if (!streamed) item.append(undefined, JSON.stringify(block.input ?? {}), t.response.sink);
        item.close(t.response.sink, 'completed');
      },
    };
  },
};

export class MessagesStreamTranslator implements UpstreamStream {
  readonly response: ResponseStream;
  private readonly blocks = new Map<number, Block>();

  /** `sealed`: whether to keep the thinking's signature as the reasoning item's `encrypted_content`. */
  constructor(
    echo: ResponseEcho,
    readonly sealed: boolean,
  ) {
    this.response = new ResponseStream(echo, MESSAGE_ID_PREFIX);
  }

  get outcome(): ResponseStream['outcome'] {
    return this.response.outcome;
  }

  translate(ev: SseEvent, usage: () => Usage): SseEvent[] {
    const data = eventJson(ev);
    const type = str(data?.type);
    if (!data || !Object.hasOwn(ON_EVENT, type)) return [];
    ON_EVENT[type]!(this, data, usage);
    return this.response.take();
  }

  fail(error: StreamError): SseEvent[] {
    this.response.fail(error);
    return this.response.take();
  }

  open(index: number, block: JsonObject): void {
    const type = str(block.type);
    // A block before `message_start` (an upstream that sent none) still opens the Response.
    this.response.start();
    if (Object.hasOwn(OPEN, type)) this.blocks.set(index, OPEN[type]!(this, block));
  }

  delta(index: number, delta: JsonObject): void {
    const deltas = this.blocks.get(index)?.deltas;
    const type = str(delta.type);
    if (deltas && Object.hasOwn(deltas, type)) deltas[type]!(delta);
  }

  stop(index: number): void {
    this.blocks.get(index)?.stop();
  }
}
