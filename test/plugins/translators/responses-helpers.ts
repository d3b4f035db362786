/**
 * Shared by the Responses translation tests: a chat model, recorded chat answers run through a chat
 * family's own reader and the translation around it (as the endpoint will wire them), the golden
 * Responses answers OpenAI recorded, and a comparison of members against them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { RESPONSES_FIELD_RULES } from '../../../plugins/apis/responses';
import { Errors, type SseEvent } from '../../../core/kit/plugin';
import type { JsonObject } from '../../../core/kit/json';
import type { ModelApi, ModelSpec, TranslatingReader } from '../../../core/kit/upstream';
import { ChatCompletionsApi } from '../../../plugins/apis/chat-completions';
import { ChatResponseReader } from '../../../plugins/upstreams/openai-compatible/chat-reader';
import { responsesFromChat, type ResponsesFromChatReader } from '../../../plugins/translators/responses-chat';
import { parseSse } from '../../helpers/http';

/** The source tree's test/, found from dist/test/plugins/translators where the compiled tests run. */
const TEST_DIR = join(__dirname, '..', '..', '..', '..', 'test');

/** A model of `api` for the translation tests, with the vendor's output ceiling. */
export const testModel = (id: string, api: ModelApi, maxOutput: number): ModelSpec => ({
  id,
  api,
  created: 0,
  ownedBy: id.split('-')[0]!,
  limits: { max_output_tokens: maxOutput },
});

export const MODEL: ModelSpec = testModel('modela-5.5', ChatCompletionsApi, 128_000);

/** A file under test/ as text. */
export const fixtureText = (file: string): string => readFileSync(join(TEST_DIR, file), 'utf8');
export const fixtureJson = (file: string): JsonObject => JSON.parse(fixtureText(file)) as JsonObject;

/** A recorded chat stream's events. */
export const chatEvents = (file: string): SseEvent[] => parseSse(fixtureText(file));

/** A golden Responses stream (`.jsonl`: one event's data a line). */
export const goldenEvents = (file: string): JsonObject[] =>
  fixtureText(`kit/fixtures/responses/${file}`)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as JsonObject);

export const goldenJson = (file: string): JsonObject => fixtureJson(`kit/fixtures/responses/${file}`);

export interface Translated {
  readonly reader: ResponsesFromChatReader;
  /** What the client got, event by event. */
  readonly events: SseEvent[];
}

/**
 * Runs `events` through a chat family's reader (the client did not ask usage, so the family takes the
 * usage chunk out, as for every translated stream) and the translation, for a client that sent `body`.
 */
export function translateStream(
  events: readonly SseEvent[],
  body: JsonObject = { model: MODEL.id, input: 'hi', stream: true },
  promptTokens = 3,
): Translated {
  const inner = new ChatResponseReader(true, false, () => promptTokens);
  return runStream(responsesFromChat(inner, body, MODEL), events);
}

/** What the client gets when `reader` reads `events`, event by event. */
export function runStream<R extends TranslatingReader>(
  reader: R,
  events: readonly SseEvent[],
): { readonly reader: R; readonly events: SseEvent[] } {
  const out: SseEvent[] = [];
  for (const ev of events) {
    const got = reader.event(ev);
    if (got === null) continue;
    if (Array.isArray(got)) out.push(...(got as SseEvent[]));
    else out.push(got as SseEvent);
  }
  return { reader, events: out };
}

/** Every event: numbered 0, 1, 2 … and named by its type. */
export function checkNumbering(t: Test, events: readonly SseEvent[]): void {
  const data = payloads(events);
  t.strictSame(
    data.map((e) => e.sequence_number),
    data.map((_, i) => i),
    'sequence_number counts from 0',
  );
  t.ok(
    events.every((ev) => ev.event === (JSON.parse(ev.data) as JsonObject).type),
    'each event is named by its type',
  );
}

/** Members of each of our event types that OpenAI's event of that type has and ours lacks. */
export function missingAgainst(ours: readonly JsonObject[], golden: readonly JsonObject[]): string[] {
  const missing: string[] = [];
  for (const g of golden) {
    const mine = ours.find((e) => e.type === g.type);
    if (mine) missing.push(...missingMembers(mine, g, NOT_WRITTEN).map((m) => `${String(g.type)}: ${m}`));
  }
  return [...new Set(missing)];
}

/** The events about one output item, by its index. */
export const ofItem = (events: readonly JsonObject[], index: number): JsonObject[] =>
  events.filter((e) => e.output_index === index);

/** The events' payloads. */
export const payloads = (events: readonly SseEvent[]): JsonObject[] =>
  events.map((ev) => JSON.parse(ev.data) as JsonObject);

/** The event types in order, runs of one type written once (a delta stream is one step). */
export const steps = (events: readonly JsonObject[]): string[] =>
  events.map((e) => String(e.type)).filter((type, i, all) => type !== all[i - 1]);

/** The SSE bytes a client receives for `events`. */
export const wire = (events: readonly SseEvent[]): string =>
  events.map((ev) => `event: ${String(ev.event)}\ndata: ${ev.data}\n\n`).join('');

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The member paths `golden` has that `ours` lacks, recursively (arrays by their first element), except
 * those `ignored` names by path (`output[].encrypted_content`) or by name anywhere (`obfuscation`).
 */
export function missingMembers(
  ours: unknown,
  golden: unknown,
  ignored: ReadonlySet<string> = new Set(),
  path = '',
): string[] {
  if (Array.isArray(golden)) {
    if (!Array.isArray(ours) || golden.length === 0 || ours.length === 0) return [];
    return missingMembers(ours[0], golden[0], ignored, `${path}[]`);
  }
  if (!isObject(golden) || !isObject(ours)) return [];
  const missing: string[] = [];
  for (const key of Object.keys(golden)) {
    const at = path ? `${path}.${key}` : key;
    if (ignored.has(at) || ignored.has(key)) continue;
    if (!(key in ours)) missing.push(at);
    else missing.push(...missingMembers(ours[key], golden[key], ignored, at));
  }
  return missing;
}

/**
 * Members of OpenAI's recorded Responses the translation does not write, each for a reason:
 * `billing` and `tool_usage` account OpenAI's own billing and built-in tools; `moderation` and the
 * penalties are settings the SDK's request types do not have; `reasoning.context` and `reasoning.mode`
 * are newer settings the translation refuses, so there is nothing to echo; `encrypted_content` is
 * OpenAI's sealed reasoning, which no chat vendor returns; `obfuscation` is the API's padding
 * (request-fields.ts, stream_options).
 */
export const NOT_WRITTEN: ReadonlySet<string> = new Set([
  'billing',
  'tool_usage',
  'moderation',
  'frequency_penalty',
  'presence_penalty',
  'reasoning.context',
  'reasoning.mode',
  'response.reasoning.context',
  'response.reasoning.mode',
  'encrypted_content',
  'obfuscation',
]);

/** The contract's 400 body for a refusal naming `field`. */
export const refused = (field: string, code = 'unsupported_field') => ({
  status: 400,
  code,
  message: new RegExp(`field '${field.replace(/[[\]]/g, '\\$&')}'`),
});

/** What a field's value becomes: members added to the target's body, or a refusal naming a field. */
export type Expect = { readonly sent: JsonObject } | { readonly refused: string; readonly code?: string };

/** Every field of the API's rules, with valid values and what each becomes. */
export type FieldCases = Readonly<Record<keyof typeof RESPONSES_FIELD_RULES, readonly [unknown, Expect][]>>;

/**
 * The rows every translation decides alike (responses-output/request-rules.ts): what nothing stores or
 * runs is refused, the Response's own bookkeeping kept.
 */
export const SHARED_FIELD_CASES = {
  input: [['hi', { sent: {} }]],
  top_logprobs: [
    [0, { sent: {} }],
    [3, { refused: 'top_logprobs' }],
  ],
  stream: [[true, { sent: { stream: true } }]],
  stream_options: [
    [{ include_obfuscation: false }, { sent: {} }],
    [{ include_usage: true }, { refused: 'stream_options.include_usage' }],
  ],
  metadata: [
    [{ k: 'v' }, { sent: {} }],
    [{ k: 1 }, { refused: 'metadata', code: 'invalid_request' }],
  ],
  prompt_cache_options: [[{ ttl: '1h' }, { refused: 'prompt_cache_options' }]],
  store: [
    [false, { sent: {} }],
    [true, { refused: 'store' }],
  ],
  background: [
    [false, { sent: {} }],
    [true, { refused: 'background' }],
  ],
  truncation: [
    ['disabled', { sent: {} }],
    ['auto', { refused: 'truncation' }],
  ],
  previous_response_id: [['resp_1', { refused: 'previous_response_id' }]],
  conversation: [['conv_1', { refused: 'conversation' }]],
  prompt: [[{ id: 'pmpt_1' }, { refused: 'prompt' }]],
  context_management: [[[{ type: 'compaction' }], { refused: 'context_management' }]],
  moderation: [[{ model: 'omni-moderation-latest' }, { refused: 'moderation' }]],
  max_tool_calls: [[3, { refused: 'max_tool_calls' }]],
} as const satisfies Partial<FieldCases>;

/**
 * Checks each row of `cases` through `translate` (the client's body with that one field added): the
 * target's body is `plain` with the row's members, or the refusal names the row's field. A field added
 * to the API's rules without a row fails: each must be decided.
 */
export function checkEveryField(
  t: Test,
  cases: FieldCases,
  translate: (extra: JsonObject) => JsonObject,
  plain: JsonObject,
): void {
  t.same(Object.keys(cases).sort(), Object.keys(RESPONSES_FIELD_RULES).sort(), 'each rule has a row');
  for (const [field, rows] of Object.entries(cases)) {
    for (const [value, expect] of rows) {
      const name = `${field}: ${JSON.stringify(value)}`;
      if ('sent' in expect) t.strictSame(translate({ [field]: value }), { ...plain, ...expect.sent }, name);
      else t.throws(() => translate({ [field]: value }), refused(expect.refused, expect.code), name);
    }
  }
}

/**
 * Checks the frames `reader` writes when the gateway cuts its stream after `written` events: the `error`
 * event and `response.failed`, numbered on, what was being written left incomplete; and only once.
 */
export function checkCutFrames(t: Test, reader: TranslatingReader, written: number, upstream: string): void {
  const frame = reader.errorFrame!(Errors.streamCut(upstream));
  const frames = frame
    .trim()
    .split('\n\n')
    .map((f) => JSON.parse(f.split('\ndata: ')[1]!) as JsonObject);
  t.match(frames, [
    {
      type: 'error',
      code: 'upstream_stream_cut',
      sequence_number: written,
      error: { code: 'upstream_stream_cut' },
    },
    {
      type: 'response.failed',
      sequence_number: written + 1,
      response: {
        status: 'failed',
        error: { code: 'upstream_stream_cut' },
        output: [{ status: 'incomplete' }],
      },
    },
  ]);
  t.ok(frame.startsWith('event: error\n'));
  t.ok(reader.failed);
  t.equal(reader.errorFrame!(Errors.streamCut(upstream)), '', 'written once');
}

/** `events` with `from` replaced by `to` in each one's data. */
export const withData = (events: readonly SseEvent[], from: string, to: string): SseEvent[] =>
  events.map((ev) => ({ ...ev, data: ev.data.replace(from, to) }));

/** Checks a stream whose one message was cut short by the token limit: a proper end, incomplete. */
export function checkCutShort(t: Test, reader: TranslatingReader, events: readonly SseEvent[]): void {
  const data = payloads(events);
  t.match(data.at(-1), {
    type: 'response.incomplete',
    response: {
      status: 'incomplete',
      completed_at: null,
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'message', status: 'incomplete' }],
    },
  });
  t.match(
    data.find((e) => e.type === 'response.output_item.done'),
    { item: { status: 'incomplete' } },
  );
  t.ok(reader.complete, 'incomplete is a proper end');
}

/**
 * Checks a completed one-message text answer, `replace`, for `model`, with the usage `[input, output]`
 * the family metered and no setting echoed but the API's defaults; and every member OpenAI's recorded
 * answer has.
 */
export function checkTextAnswer(
  t: Test,
  replace: JsonObject,
  model: string,
  [input, output]: readonly [number, number],
): void {
  t.match(replace, {
    id: /^resp_/,
    object: 'response',
    status: 'completed',
    completed_at: Number,
    error: null,
    incomplete_details: null,
    model,
    output: [
      {
        id: /^msg_/,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: String }],
      },
    ],
    usage: {
      input_tokens: input,
      input_tokens_details: { cache_write_tokens: 0, cached_tokens: 0 },
      output_tokens: output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + output,
    },
    store: false,
    tool_choice: 'auto',
    tools: [],
    text: { format: { type: 'text' } },
    truncation: 'disabled',
    metadata: {},
  });
  t.same(
    missingMembers(replace, goldenJson('json-text.json'), NOT_WRITTEN),
    [],
    "every member of OpenAI's answer",
  );
}

/** A reasoning item's steps in a stream: no recording has them; the `openai` SDK's event types do. */
export const REASONING_STEPS: readonly string[] = [
  'response.output_item.added',
  'response.content_part.added',
  'response.reasoning_text.delta',
  'response.reasoning_text.done',
  'response.content_part.done',
  'response.output_item.done',
];

const items = (...input: JsonObject[]): JsonObject => ({ input });

/**
 * What no translation has a counterpart for (a stored item, a built-in tool's call, an uploaded file,
 * tool search, a tool choice of other tools), each with the path its 400 names.
 */
export const SHARED_REFUSALS: readonly (readonly [JsonObject, string])[] = [
  [items({ type: 'item_reference', id: 'msg_1' }), 'input[0]'],
  [items({ type: 'web_search_call', id: 'ws_1' }), 'input[0]'],
  [
    items({ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }),
    'input[0].content[0].file_id',
  ],
  [
    items({ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}', namespace: 'ns' }),
    'input[0].namespace',
  ],
  [{ tools: [{ type: 'function', name: 'f', defer_loading: true }] }, 'tools[0].defer_loading'],
  [{ tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] } }, 'tool_choice'],
];

/** The text a stream's `output_text` deltas write, joined. */
export const deltaText = (events: readonly JsonObject[]): string =>
  events
    .filter((e) => e.type === 'response.output_text.delta')
    .map((e) => String(e.delta))
    .join('');

/** An assistant's turn sent back: its text and two calls, then their outputs (a string, and parts). */
export const CALL_TURN_ITEMS: readonly JsonObject[] = [
  {
    type: 'message',
    role: 'assistant',
    id: 'msg_1',
    status: 'completed',
    content: [{ type: 'output_text', text: 'calling', annotations: [] }],
  },
  { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
  { type: 'function_call', call_id: 'c2', name: 'g', arguments: '{"a":1}' },
  { type: 'function_call_output', call_id: 'c1', output: 'one' },
  { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'two' }] },
];

/** The rows chat and messages both send on, under the same names (`max_tokens` for both). */
export const SAMPLING_FIELD_CASES = {
  max_output_tokens: [
    [64, { sent: { max_tokens: 64 } }],
    [15, { refused: 'max_output_tokens', code: 'invalid_request' }],
    [200_000, { refused: 'max_output_tokens', code: 'invalid_request' }],
  ],
  temperature: [[0.2, { sent: { temperature: 0.2 } }]],
  top_p: [[0.9, { sent: { top_p: 0.9 } }]],
} as const satisfies Partial<FieldCases>;
