/**
 * How a user reaches each client API and reads its answers: the request, the text each stream event
 * carries, how a stream ends properly, and the same call through the official SDK. The kit's chat suite
 * is written once against this table (for embeddings, the "text" is the vectors).
 */
import type { EventSourceMessage } from 'eventsource-parser';
import OpenAI from 'openai';
import { gatewayAnthropic } from '../helpers/anthropic-client';
import type { TestGateway } from '../helpers/gateway';

export type ClientApi = 'chat' | 'messages' | 'images' | 'embeddings' | 'responses';

/**
 * How long a whole answer may take, raw or through an SDK, before it counts as hung: the largest
 * recordings go out in thousands of small pieces, a second's work here and several on a loaded machine.
 */
export const ANSWER_MS = 30_000;

type Json = Record<string, unknown>;

/** What a user got from the SDK: the text read, or the error it raised (its HTTP status, if any). */
export type SdkView = { readonly text: string } | { readonly error: unknown; readonly status?: number };

export interface ApiProfile {
  readonly path: string;
  readonly streams: boolean;
  /** Whether the contract gives every answer `usage` (text APIs), so the gateway estimates a missing one. */
  readonly usageRequired: boolean;
  /**
   * What an estimate counts: `output`, the tokens delivered (generating APIs); `input`, the request's
   * (embeddings, which produce no tokens).
   */
  readonly estimates: 'output' | 'input';
  /** The smallest valid request for `model`. */
  readonly body: (model: string, stream: boolean) => Json;
  /** The text one stream event adds. */
  readonly eventText: (ev: EventSourceMessage) => string;
  /** Whether the event is the stream's proper last event. */
  readonly isEnd: (ev: EventSourceMessage) => boolean;
  /** The error event's payload, when `ev` is one. */
  readonly errorOf: (ev: EventSourceMessage) => Json | undefined;
  /** The same call through the official SDK; only visible text is compared (SDKs type no thinking). */
  readonly sdk: (gw: TestGateway, model: string, stream: boolean, id: string) => Promise<SdkView>;
  /** The text the SDK exposes, from a JSON answer or the stream's events. */
  readonly visibleText: (answer: Json | readonly EventSourceMessage[]) => string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const parse = (ev: EventSourceMessage): Json | undefined => {
  if (ev.data === '[DONE]') return undefined;
  const data: unknown = JSON.parse(ev.data);
  return typeof data === 'object' && data !== null ? (data as Json) : undefined;
};
const hello = [{ role: 'user' as const, content: 'hi' }];
const withId = (id: string) => ({ headers: { 'x-request-id': id } });

/** Runs an SDK call, catching what it raises as the user would see it. */
async function sdkView(call: () => Promise<string>): Promise<SdkView> {
  try {
    return { text: await call() };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    return typeof status === 'number' ? { error, status } : { error };
  }
}

const openai = (gw: TestGateway): OpenAI =>
  new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: ANSWER_MS });

const chatDeltas = (data: Json | undefined, key: 'content' | 'reasoning_content'): string =>
  ((data?.choices ?? []) as { delta?: Json }[]).map((c) => str(c.delta?.[key])).join('');

const chat: ApiProfile = {
  path: '/v1/chat/completions',
  streams: true,
  usageRequired: true,
  estimates: 'output',
  body: (model, stream) => ({ model, stream, messages: hello }),
  eventText: (ev) => {
    const data = parse(ev);
    return chatDeltas(data, 'reasoning_content') + chatDeltas(data, 'content');
  },
  isEnd: (ev) => ev.data === '[DONE]',
  errorOf: (ev) => (parse(ev)?.error as Json | undefined) ?? undefined,
  visibleText: (answer) =>
    Array.isArray(answer)
      ? (answer as EventSourceMessage[]).map((ev) => chatDeltas(parse(ev), 'content')).join('')
      : ((answer as Json).choices as { message?: Json }[]).map((c) => str(c.message?.content)).join(''),
  sdk: (gw, model, stream, id) =>
    sdkView(async () => {
      const client = openai(gw);
      if (!stream) {
        const completion = await client.chat.completions.create({ model, messages: hello }, withId(id));
        return completion.choices.map((c) => c.message.content ?? '').join('');
      }
      const events = await client.chat.completions.create({ model, messages: hello, stream }, withId(id));
      let text = '';
      for await (const chunk of events) for (const c of chunk.choices) text += c.delta.content ?? '';
      return text;
    }),
};

const blockText = (b: Json): string => str(b.thinking) + str(b.text);

const messages: ApiProfile = {
  path: '/v1/messages',
  streams: true,
  usageRequired: true,
  estimates: 'output',
  body: (model, stream) => ({ model, stream, max_tokens: 1024, messages: hello }),
  eventText: (ev) => {
    const delta = parse(ev)?.delta as Json | undefined;
    return ev.event === 'content_block_delta' && delta ? blockText(delta) : '';
  },
  isEnd: (ev) => ev.event === 'message_stop',
  errorOf: (ev) => (ev.event === 'error' ? (parse(ev)?.error as Json) : undefined),
  visibleText: (answer) =>
    Array.isArray(answer)
      ? (answer as EventSourceMessage[])
          .map((ev) => (ev.event === 'content_block_delta' ? str((parse(ev)?.delta as Json).text) : ''))
          .join('')
      : (((answer as Json).content ?? []) as Json[]).map((b) => str(b.text)).join(''),
  sdk: (gw, model, stream, id) =>
    sdkView(async () => {
      const client = gatewayAnthropic(gw, { timeout: ANSWER_MS });
      const body = { model, max_tokens: 1024, messages: hello };
      if (!stream) {
        const message = await client.messages.create(body, withId(id));
        return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      }
      let text = '';
      for await (const ev of await client.messages.create({ ...body, stream }, withId(id))) {
        if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
      }
      return text;
    }),
};

const images: ApiProfile = {
  path: '/v1/images/generations',
  streams: false,
  usageRequired: false,
  estimates: 'output',
  body: (model) => ({ model, prompt: 'a sheepadoodle in a cape' }),
  eventText: () => '',
  isEnd: () => false,
  errorOf: () => undefined,
  visibleText: (answer) => (((answer as Json).data ?? []) as Json[]).map((d) => str(d.b64_json)).join(''),
  sdk: (gw, model, _stream, id) =>
    sdkView(async () => {
      const answer = await openai(gw).images.generate(
        { model, prompt: 'a sheepadoodle in a cape' },
        withId(id),
      );
      return (answer.data ?? []).map((d) => d.b64_json ?? '').join('');
    }),
};

const EMBED_INPUT = 'The food was delicious and the waiter...';

/** OpenAI's base64 embedding: float32 little-endian. */
function float32s(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

/**
 * The vectors of an answer's `data`, as float32 (what every vendor computes in): a float answer and a
 * base64 one of the same vectors read alike.
 */
const vectorsText = (data: unknown): string =>
  JSON.stringify(
    ((Array.isArray(data) ? data : []) as Json[]).map((d) =>
      typeof d.embedding === 'string'
        ? float32s(d.embedding)
        : ((d.embedding ?? []) as number[]).map((v) => Math.fround(v)),
    ),
  );

const embeddings: ApiProfile = {
  path: '/v1/embeddings',
  streams: false,
  usageRequired: true,
  estimates: 'input',
  body: (model) => ({ model, input: EMBED_INPUT }),
  eventText: () => '',
  isEnd: () => false,
  errorOf: () => undefined,
  visibleText: (answer) => vectorsText((answer as Json).data),
  // Floats asked for: a served answer is the vendor's floats whatever was asked, and the SDK's default
  // (base64) would read them as base64.
  sdk: (gw, model, _stream, id) =>
    sdkView(async () => {
      const body = { model, input: EMBED_INPUT, encoding_format: 'float' as const };
      return vectorsText((await openai(gw).embeddings.create(body, withId(id))).data);
    }),
};

/** Events whose `delta` is text a reader sees: the answer's, and the reasoning the vendor shows. */
const RESPONSES_TEXT_DELTAS: ReadonlySet<string> = new Set([
  'response.output_text.delta',
  'response.reasoning_text.delta',
  'response.reasoning_summary_text.delta',
]);
const RESPONSES_ENDS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete']);

/**
 * A Responses stream's failure, `{code, message}`: the `error` event's (its members nested under
 * `error` as the live API sends them, or at the top as documented), or the failed Response's `error`,
 * which the API sends after it with the same code and message.
 */
function responsesFailure(ev: EventSourceMessage): Json | undefined {
  const data = parse(ev);
  const error = ev.event === 'error' ? ((data?.error as Json | undefined) ?? data) : undefined;
  const failed = ev.event === 'response.failed' ? ((data?.response as Json).error as Json) : undefined;
  const found = error ?? failed;
  return found && { code: found.code ?? null, message: found.message };
}

/** The text of a Response's output messages. */
const outputText = (response: Json): string =>
  ((response.output ?? []) as Json[])
    .flatMap((item) => (item.type === 'message' ? (item.content as Json[]) : []))
    .map((part) => (part.type === 'output_text' ? str(part.text) : ''))
    .join('');

const responses: ApiProfile = {
  path: '/v1/responses',
  streams: true,
  // The API's `usage` is optional; a vendor's Response is relayed as it came.
  usageRequired: false,
  estimates: 'output',
  body: (model, stream) => ({ model, stream, input: 'hi' }),
  eventText: (ev) => (RESPONSES_TEXT_DELTAS.has(ev.event ?? '') ? str(parse(ev)?.delta) : ''),
  isEnd: (ev) => RESPONSES_ENDS.has(ev.event ?? ''),
  errorOf: responsesFailure,
  visibleText: (answer) =>
    Array.isArray(answer)
      ? (answer as EventSourceMessage[])
          .map((ev) => (ev.event === 'response.output_text.delta' ? str(parse(ev)?.delta) : ''))
          .join('')
      : outputText(answer as Json),
  sdk: (gw, model, stream, id) =>
    sdkView(async () => {
      const client = openai(gw);
      if (!stream) return (await client.responses.create({ model, input: 'hi' }, withId(id))).output_text;
      let text = '';
      for await (const ev of await client.responses.create({ model, input: 'hi', stream }, withId(id))) {
        if (ev.type === 'response.output_text.delta') text += ev.delta;
      }
      return text;
    }),
};

export const APIS: Readonly<Record<ClientApi, ApiProfile>> = {
  chat,
  messages,
  images,
  embeddings,
  responses,
};
