/**
 * The Response object (`Response` in the SDK): what the answer itself says (id, status, output, usage)
 * and the request's settings echoed as the API returns them, each present, with the API's default where
 * the client sent nothing and null where the API has none. Members are in the order OpenAI's recorded
 * answers have them (test/kit/fixtures/responses/).
 */
import { LRUCache } from 'lru-cache';
import { isJsonObject, numberJson, type JsonObject } from '../../../core/kit/json';
import { responsesUsageJson, type ModelSpec } from '../../../core/kit/upstream';
import type { Usage } from '../../../core/kit/plugin';

/** The request's settings as every Response of the request repeats them. */
export type ResponseEcho = Readonly<JsonObject>;

const orNull = (value: unknown): unknown => value ?? null;
const member = (value: unknown, key: string): unknown => (isJsonObject(value) ? value[key] : undefined);

/** `text`: its format and verbosity, each the API's default where the client set none. */
const echoedText = (text: unknown): JsonObject => ({
  format: member(text, 'format') ?? { type: 'text' },
  verbosity: member(text, 'verbosity') ?? 'medium',
});

/**
 * The settings of a validated request, for its Responses. `store` is false: nothing keeps responses, so
 * none can be retrieved or continued from (a request asking `store: true` was refused). The model is the
 * one the client asked for, as the gateway's other answers name it.
 */
export const responseEcho = (body: JsonObject, model: string): ResponseEcho => ({
  background: false,
  instructions: orNull(body.instructions),
  max_output_tokens: orNull(body.max_output_tokens),
  max_tool_calls: null,
  model,
  parallel_tool_calls: body.parallel_tool_calls ?? true,
  previous_response_id: null,
  prompt_cache_key: orNull(body.prompt_cache_key),
  prompt_cache_retention: orNull(body.prompt_cache_retention),
  reasoning: {
    effort: orNull(member(body.reasoning, 'effort')),
    summary: member(body.reasoning, 'summary') ?? orNull(member(body.reasoning, 'generate_summary')),
  },
  safety_identifier: orNull(body.safety_identifier),
  service_tier: body.service_tier ?? 'auto',
  store: false,
  temperature: orNull(body.temperature),
  text: echoedText(body.text),
  tool_choice: body.tool_choice ?? 'auto',
  tools: body.tools ?? [],
  top_logprobs: body.top_logprobs ?? 0,
  top_p: orNull(body.top_p),
  truncation: body.truncation ?? 'disabled',
  user: orNull(body.user),
  metadata: body.metadata ?? {},
});

/** The request members the echo reads, found once by reading an echo through a proxy that notes them. */
const ECHOED: readonly string[] = (() => {
  const read = new Set<string>();
  responseEcho(new Proxy({}, { get: (_, key) => void (typeof key === 'string' && read.add(key)) }), '');
  return [...read];
})();

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/**
 * Echoes of requests that set none of the echoed members, by model name: most requests. Their echo, and
 * the JSON a stream's writer makes of it (responseWriter), are then made once, not per request.
 */
const plainEchoes = new LRUCache<string, ResponseEcho>({ max: 256 });

/** The echo of a request (`body`, as validated) routed to `model`: the model named as the client named it. */
export function echoOf(body: JsonObject, model: ModelSpec): ResponseEcho {
  const name = typeof body.model === 'string' ? body.model : model.id;
  if (ECHOED.some((key) => body[key] !== undefined)) return responseEcho(body, name);
  let echo = plainEchoes.get(name);
  if (echo === undefined) plainEchoes.set(name, (echo = deepFreeze(responseEcho({}, name))));
  return echo;
}

/** What one Response says of itself, beside the echo. */
export interface ResponseState {
  readonly id: string;
  readonly createdAt: number;
  readonly status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  /** Unix seconds; set once the response completed. */
  readonly completedAt?: number;
  readonly error?: JsonObject;
  readonly incompleteDetails?: JsonObject | null;
  readonly output: readonly JsonObject[];
  readonly usage?: JsonObject;
}

/** The Response's members in the order of OpenAI's recorded answers. */
const ORDER = [
  'id',
  'object',
  'created_at',
  'status',
  'background',
  'completed_at',
  'error',
  'incomplete_details',
  'instructions',
  'max_output_tokens',
  'max_tool_calls',
  'model',
  'output',
  'parallel_tool_calls',
  'previous_response_id',
  'prompt_cache_key',
  'prompt_cache_retention',
  'reasoning',
  'safety_identifier',
  'service_tier',
  'store',
  'temperature',
  'text',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'truncation',
  'usage',
  'user',
  'metadata',
] as const;

/** The members a Response says of itself; the rest are the echo's. */
const ownMembers = (state: ResponseState): JsonObject => ({
  id: state.id,
  object: 'response',
  created_at: state.createdAt,
  status: state.status,
  completed_at: state.completedAt ?? null,
  error: state.error ?? null,
  incomplete_details: state.incompleteDetails ?? null,
  output: state.output,
  usage: state.usage ?? null,
});

/** The Response: its own members from `state`, the others from the request's echo. */
export function responseObject(state: ResponseState, echo: ResponseEcho): JsonObject {
  const own = ownMembers(state);
  return Object.fromEntries(ORDER.map((key) => [key, Object.hasOwn(own, key) ? own[key] : echo[key]]));
}

/**
 * A Response's own members but its output, which a stream has as JSON already, and with the gateway's
 * usage, written as the API's; its id as JSON too (ResponseIds.json).
 */
export type ResponseHead = Omit<ResponseState, 'id' | 'output' | 'usage'> & {
  readonly idJson: string;
  readonly usage?: Usage;
};

const orNullJson = (value: unknown): string => (value == null ? 'null' : JSON.stringify(value));

/** Each own member as JSON, as `JSON.stringify` writes it in `responseObject`'s Response. */
const OWN_JSON = new Map<string, (head: ResponseHead, output: string) => string>([
  ['id', (head) => head.idJson],
  ['object', () => '"response"'],
  ['created_at', (head) => numberJson(head.createdAt)],
  ['status', (head) => `"${head.status}"`],
  ['completed_at', (head) => (head.completedAt === undefined ? 'null' : numberJson(head.completedAt))],
  ['error', (head) => orNullJson(head.error)],
  ['incomplete_details', (head) => orNullJson(head.incompleteDetails)],
  ['output', (_, output) => output],
  ['usage', (head) => (head.usage === undefined ? 'null' : responsesUsageJson(head.usage))],
]);

/**
 * A stream's Responses as JSON, `JSON.stringify(responseObject(state, echo))` to the byte (`output` given
 * as JSON): the echo's members, the same in every Response of the request, are serialised once, and the
 * Response's own written between them. The generic serialiser's walk of a 31-member object built key by
 * key, two or three times a stream, was most of a translated stream's cost beyond the chat relay's.
 */
export function responseWriter(echo: ResponseEcho): ResponseJsonWriter {
  let writer = writers.get(echo);
  if (writer === undefined) writers.set(echo, (writer = writerOf(echo)));
  return writer;
}

/** A Response as JSON from its own members and its output's JSON (responseWriter). */
export type ResponseJsonWriter = (head: ResponseHead, output: string) => string;

/** Each echo's writer: a plain echo (echoOf) is shared by the requests of its model, and so is its writer. */
const writers = new WeakMap<ResponseEcho, ResponseJsonWriter>();

function writerOf(echo: ResponseEcho): ResponseJsonWriter {
  // Each member in order: a run of the echo's as JSON (`"a":1,"b":2`), or an own one's writer.
  const plan: (string | ((head: ResponseHead, output: string) => string))[] = [];
  let run: JsonObject | undefined;
  const endRun = (): void => {
    const json = run && JSON.stringify(run).slice(1, -1);
    if (json) plan.push(json);
    run = undefined;
  };
  for (const key of ORDER) {
    const own = OWN_JSON.get(key);
    if (!own) (run ??= {})[key] = echo[key];
    else {
      endRun();
      const name = `"${key}":`;
      plan.push((head, output) => name + own(head, output));
    }
  }
  endRun();
  return (head, output) => {
    let out = '';
    for (const step of plan) {
      const member = typeof step === 'string' ? step : step(head, output);
      out += out === '' ? `{${member}` : `,${member}`;
    }
    return `${out}}`;
  };
}
