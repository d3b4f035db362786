/**
 * The stream guard driven as the relay drives a stage's filter: each upstream event in the client's
 * API through `event`, `flush` at the upstream's end, and a StreamControl that records the events a block
 * ends the stream with. Rules are made here with a literal-string matcher; the streams are written as the
 * simulator writes them (simulator/chat, simulator/messages, simulator/responses).
 */
import type { ClientEvents } from '../../../../core/contracts/reader';
import type { StreamControl } from '../../../../core/contracts/stage';
import type { Usage } from '../../../../core/contracts/usage';
import type { SseEvent } from '../../../../core/base/sse';
import type { Found, Matcher } from '../../../../plugins/middleware/guardrails/finders/matcher';
import type { Rule } from '../../../../plugins/middleware/guardrails/rules';
import { StreamGuard } from '../../../../plugins/middleware/guardrails/stream/stream-guard';
import { streamShape } from '../../../../plugins/middleware/guardrails/stream/shapes';

/**
 * Finds `word` as it is. `greedy`: a match at the text's end stays open too (as `\d+` would), so that
 * only the next piece or the run's end decides it.
 */
export function literal(word: string, placeholder = '[X]', greedy = false): Matcher {
  return {
    placeholder,
    find(text: string, from: number): Found[] {
      const found: Found[] = [];
      for (let at = text.indexOf(word, from); at >= 0; at = text.indexOf(word, at + word.length))
        found.push({ start: at, end: at + word.length });
      return found;
    },
    openFrom(text: string, from: number): number {
      for (let p = from; p < text.length; p++) {
        const rest = text.slice(p);
        if (word.startsWith(rest) && (greedy || rest.length < word.length)) return p;
      }
      return text.length;
    },
  };
}

export const rule = (name: string, action: Rule['action'], ...matchers: Matcher[]): Rule => ({
  name,
  action,
  matchers,
});

export const USAGE: Usage = { promptTokens: 12, completionTokens: 5, estimated: true };

/** A StreamControl that records how a stage ended the stream. */
export class FakeControl implements StreamControl {
  final: SseEvent[] | undefined;

  end(final: ClientEvents): void {
    this.final ??=
      final === null ? [] : Array.isArray(final) ? [...(final as SseEvent[])] : [final as SseEvent];
  }
  usage(): Usage {
    return USAGE;
  }
  quietMs(): number {
    return 0;
  }
  silentMs(): number {
    return 0;
  }
  ping(): void {}
  timeOut(): void {}
}

/** What one upstream event became. */
export interface Step {
  readonly given: SseEvent;
  readonly out: readonly SseEvent[];
  /** The event went on as the same object: the upstream's own bytes. */
  readonly kept: boolean;
}

export interface Run {
  readonly steps: Step[];
  /** Every event the client got, in order: released, then the stage's final events. */
  readonly client: SseEvent[];
  readonly acted: string[];
  /** The events a block ended the stream with (StreamControl.end); undefined when none did. */
  readonly final: SseEvent[] | undefined;
  /** What `flush` released at the upstream's end. */
  readonly flushed: SseEvent[];
}

const list = (out: ClientEvents): SseEvent[] =>
  out === null ? [] : Array.isArray(out) ? [...(out as SseEvent[])] : [out as SseEvent];

/** Drives a fresh guard for `endpoint` over `events`, as the relay does: a block ends the stream. */
export function drive(
  endpoint: string,
  rules: readonly Rule[],
  events: readonly SseEvent[],
  options: { includeUsage?: boolean; bound?: number; flush?: boolean; parseAll?: boolean } = {},
): Run {
  const control = new FakeControl();
  const acted: string[] = [];
  const shape = streamShape(endpoint)!;
  // Every event parsed and read whole: what reading bare events from their text must agree with.
  if (options.parseAll) shape.bare = undefined;
  const guard = new StreamGuard({
    shape,
    rules,
    bound: options.bound ?? 1024,
    control,
    includeUsage: options.includeUsage ?? false,
    acted: (r) => acted.push(`${r.name}:${r.action}`),
  });
  const steps: Step[] = [];
  const client: SseEvent[] = [];
  for (const given of events) {
    const raw = guard.event(given);
    const out = list(raw);
    steps.push({ given, out, kept: raw === given });
    client.push(...out);
    if (control.final) break;
  }
  const flushed = control.final || options.flush === false ? [] : list(guard.flush?.() ?? null);
  client.push(...flushed, ...(control.final ?? []));
  return { steps, client, acted, final: control.final, flushed };
}

export const json = <T = Record<string, unknown>>(ev: SseEvent): T => JSON.parse(ev.data) as T;

interface ChatChunkJson {
  choices?: {
    index: number;
    delta?: { content?: string | null; tool_calls?: { function?: { arguments?: string } }[] };
    finish_reason?: string | null;
  }[];
}

interface MessagesJson {
  type: string;
  index?: number;
  delta?: { text?: string; partial_json?: string };
}

interface ItemJson {
  type: string;
  arguments?: string;
  content?: { text: string }[];
}

interface ResponsesJson {
  type: string;
  delta?: string;
  text?: string;
  arguments?: string;
  part?: { text: string };
  item?: ItemJson;
  response?: { output: ItemJson[] };
  sequence_number?: number;
}

/** Whether a string holds half a surrogate pair: a client would get a broken character. */
export const hasLoneSurrogate = (text: string): boolean =>
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

// ---- Chat completions, as simulator/chat/chunks.ts writes them ----

const CHAT_HEAD = {
  id: 'chatcmpl-sim1',
  object: 'chat.completion.chunk',
  created: 1788205738,
  model: 'modela-5.5',
};

const chatChunk = (choices: unknown[], extra: Record<string, unknown> = {}): SseEvent => ({
  data: JSON.stringify({ ...CHAT_HEAD, system_fingerprint: 'fp_sim', choices, ...extra }),
});

const choice = (index: number, delta: unknown, finish: string | null = null): unknown => ({
  index,
  delta,
  logprobs: null,
  finish_reason: finish,
});

/** A chat stream of one choice's content pieces: role, content, finish, the usage chunk, `[DONE]`. */
export function chatStream(
  pieces: readonly string[],
  o: { finish?: boolean; usage?: boolean } = {},
): SseEvent[] {
  const events = [
    chatChunk([choice(0, { role: 'assistant', content: '' })]),
    ...pieces.map((content) => chatChunk([choice(0, { content })])),
  ];
  if (o.finish !== false) events.push(chatChunk([choice(0, {}, 'stop')]));
  if (o.usage)
    events.push(chatChunk([], { usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 } }));
  if (o.finish !== false) events.push({ data: '[DONE]' });
  return events;
}

/** Two choices, their pieces interleaved token by token (`n: 2`). */
export function chatTwoChoices(first: readonly string[], second: readonly string[]): SseEvent[] {
  const events = [0, 1].map((i) => chatChunk([choice(i, { role: 'assistant', content: '' })]));
  for (let step = 0; step < Math.max(first.length, second.length); step++) {
    if (step < first.length) events.push(chatChunk([choice(0, { content: first[step] })]));
    if (step < second.length) events.push(chatChunk([choice(1, { content: second[step] })]));
  }
  events.push(chatChunk([choice(0, {}, 'stop')]), chatChunk([choice(1, {}, 'stop')]), { data: '[DONE]' });
  return events;
}

/** A chat stream of one tool call's argument fragments, its header on the role chunk as OpenAI sends it. */
export function chatToolStream(fragments: readonly string[]): SseEvent[] {
  const header = {
    index: 0,
    id: 'call_sim',
    type: 'function',
    function: { name: 'get_weather', arguments: '' },
  };
  return [
    chatChunk([choice(0, { role: 'assistant', content: null, tool_calls: [header] })]),
    ...fragments.map((args) =>
      chatChunk([choice(0, { tool_calls: [{ index: 0, function: { arguments: args } }] })]),
    ),
    chatChunk([choice(0, {}, 'tool_calls')]),
    { data: '[DONE]' },
  ];
}

/** What the client's SDK makes of a chat stream: each choice's content, or tool call arguments. */
export function chatText(events: readonly SseEvent[], index = 0): string {
  let text = '';
  for (const ev of events) {
    if (ev.data === '[DONE]') continue;
    for (const c of json<ChatChunkJson>(ev).choices ?? [])
      if (c.index === index) {
        if (typeof c.delta?.content === 'string') text += c.delta.content;
        for (const call of c.delta?.tool_calls ?? []) text += call.function?.arguments ?? '';
      }
  }
  return text;
}

// ---- Messages, as simulator/messages/events.ts writes them ----

const named = (payload: { type: string } & Record<string, unknown>): SseEvent => ({
  event: payload.type,
  data: JSON.stringify(payload),
});

/** A Messages stream of one block: text deltas, or a tool_use block's partial JSON. */
export function messagesStream(
  pieces: readonly string[],
  o: { tool?: boolean; stop?: boolean } = {},
): SseEvent[] {
  const block = o.tool
    ? { type: 'tool_use', id: 'toolu_sim', name: 'get_weather', input: {} }
    : { type: 'text', text: '' };
  const delta = (piece: string): unknown =>
    o.tool ? { type: 'input_json_delta', partial_json: piece } : { type: 'text_delta', text: piece };
  const message = { id: 'msg_sim', type: 'message', role: 'assistant', model: 'modeld-1', content: [] };
  const events = [
    named({ type: 'message_start', message }),
    named({ type: 'content_block_start', index: 0, content_block: block }),
    { event: 'ping', data: '{"type": "ping"}' },
    ...pieces.map((p) => named({ type: 'content_block_delta', index: 0, delta: delta(p) })),
  ];
  if (o.stop === false) return events;
  return [
    ...events,
    named({ type: 'content_block_stop', index: 0 }),
    named({
      type: 'message_delta',
      delta: { stop_reason: o.tool ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: 5 },
    }),
    named({ type: 'message_stop' }),
  ];
}

/** A block's text as the client's SDK puts it together. */
export function messagesText(events: readonly SseEvent[], index = 0): string {
  let text = '';
  for (const ev of events) {
    const p = json<MessagesJson>(ev);
    if (p.type === 'content_block_delta' && p.index === index)
      text += p.delta?.text ?? p.delta?.partial_json ?? '';
  }
  return text;
}

// ---- Responses, as simulator/responses/events.ts writes them ----

const RESPONSE = {
  id: 'resp_sim',
  object: 'response',
  created_at: 1788205738,
  status: 'in_progress',
  error: null,
  incomplete_details: null,
  model: 'modela-5.5',
  output: [] as unknown[],
  usage: null as unknown,
};

/** A Responses stream of one message's text deltas, or one function call's argument deltas. */
export function responsesStream(
  pieces: readonly string[],
  o: { call?: boolean; end?: boolean } = {},
): SseEvent[] {
  let n = 0;
  const ev = (
    type: string,
    members: Record<string, unknown>,
    after: Record<string, unknown> = {},
  ): SseEvent => ({
    event: type,
    data: JSON.stringify({ type, ...members, sequence_number: n++, ...after }),
  });
  const whole = pieces.join('');
  const itemId = o.call ? 'fc_sim' : 'msg_sim';
  const part = (text: string): unknown => ({ type: 'output_text', annotations: [], logprobs: [], text });
  const item = (status: string, text: string | null): Record<string, unknown> =>
    o.call
      ? {
          id: itemId,
          type: 'function_call',
          status,
          arguments: text ?? '',
          call_id: 'call_sim',
          name: 'get_weather',
        }
      : {
          id: itemId,
          type: 'message',
          status,
          content: text === null ? [] : [part(text)],
          role: 'assistant',
        };
  const at = { content_index: 0, item_id: itemId };
  const events = [
    ev('response.created', { response: RESPONSE }),
    ev('response.in_progress', { response: RESPONSE }),
    ev('response.output_item.added', { item: item('in_progress', o.call ? '' : null), output_index: 0 }),
  ];
  if (o.call) {
    for (const delta of pieces)
      events.push(ev('response.function_call_arguments.delta', { delta, item_id: itemId, output_index: 0 }));
    if (o.end === false) return events;
    events.push(
      ev('response.function_call_arguments.done', { arguments: whole, item_id: itemId, output_index: 0 }),
    );
  } else {
    events.push(ev('response.content_part.added', { ...at, output_index: 0, part: part('') }));
    for (const delta of pieces)
      events.push(ev('response.output_text.delta', { ...at, delta, logprobs: [], output_index: 0 }));
    if (o.end === false) return events;
    events.push(ev('response.output_text.done', { ...at, logprobs: [], output_index: 0 }, { text: whole }));
    events.push(ev('response.content_part.done', { ...at, output_index: 0, part: part(whole) }));
  }
  const done = item('completed', whole);
  const usage = { input_tokens: 12, output_tokens: 5, total_tokens: 17 };
  events.push(ev('response.output_item.done', { item: done, output_index: 0 }));
  events.push(
    ev('response.completed', { response: { ...RESPONSE, status: 'completed', output: [done], usage } }),
  );
  return events;
}

/** The deltas' text, as the client's SDK adds it up. */
export function responsesText(events: readonly SseEvent[]): string {
  let text = '';
  for (const ev of events) {
    const p = json<ResponsesJson>(ev);
    if (p.type === 'response.output_text.delta' || p.type === 'response.function_call_arguments.delta')
      text += p.delta ?? '';
  }
  return text;
}

/** Every text a Responses stream's done events repeat, with where it was read. */
export function responsesDoneTexts(events: readonly SseEvent[]): string[] {
  const texts: string[] = [];
  const ofItem = (item: ItemJson | undefined): string[] =>
    item?.type === 'function_call' ? [item.arguments ?? ''] : (item?.content ?? []).map((part) => part.text);
  for (const ev of events) {
    const p = json<ResponsesJson>(ev);
    if (p.type === 'response.output_text.done') texts.push(p.text ?? '');
    if (p.type === 'response.function_call_arguments.done') texts.push(p.arguments ?? '');
    if (p.type === 'response.content_part.done') texts.push(p.part?.text ?? '');
    if (p.type === 'response.output_item.done') texts.push(...ofItem(p.item));
    if (p.type === 'response.completed' || p.type === 'response.incomplete')
      texts.push(...(p.response?.output ?? []).flatMap(ofItem));
  }
  return texts;
}

/** The events' sequence numbers. */
export const sequenceNumbers = (events: readonly SseEvent[]): number[] =>
  events.map((ev) => json<ResponsesJson>(ev).sequence_number ?? -1);

/** Whether numbers only rise. */
export const rising = (numbers: readonly number[]): boolean =>
  numbers.every((n, i) => i === 0 || n > numbers[i - 1]!);
