/**
 * What the benchmark sends: one case per kind of exchange, and how to tell a correct answer to each.
 */
import { MODELA, MODELC, MODELD, type SimUpstream } from './upstreams';

/**
 * `stream` is the burst case: the simulator writes the whole stream at once, so the proxy's cost per event
 * decides. `stream-paced` sends the same stream one event at a time (`#sim tps=2000`, an event every
 * 0.5 ms), as a model does: the proxy's cost per chunk decides, and the simulator's pace caps both targets.
 * `json-10` is `json` at 10 connections whatever `--connections` says: a lightly loaded deployment, where
 * a peer's fixed cost per request shows rather than its queueing.
 */
export const TIMED_CASE_NAMES = ['json', 'json-10', 'stream', 'stream-paced', 'messages'] as const;

/**
 * The Responses API's cases are the gateway's alone: no bare pipe translates one API into another. Their
 * counts stand beside the chat cases they mirror: `responses` is `json` on the vendor's own Responses API
 * (relayed), `responses-stream` is `stream` translated from chat completions into Responses events.
 * `cached` is `json` answered by the response cache stage: every counted request is a hit.
 */
export const GATEWAY_CASE_NAMES = ['responses', 'responses-stream', 'cached'] as const;

export const CASE_NAMES = [...TIMED_CASE_NAMES, ...GATEWAY_CASE_NAMES] as const;
export type CaseName = (typeof CASE_NAMES)[number];

/** Whether only the gateway can serve the case. */
export const gatewayOnly = (name: CaseName): boolean =>
  (GATEWAY_CASE_NAMES as readonly string[]).includes(name);

/** One kind of request, sent identically to both targets. */
export interface BenchCase {
  readonly name: CaseName;
  /** The simulated vendor the case's model lives at (the bare proxy is addressed by its path). */
  readonly upstream: SimUpstream;
  /** The gateway's endpoint for the case. */
  readonly gatewayPath: string;
  /** Headers the API needs beside the body, sent to both targets. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The connections it is always sent over; absent, the run's `--connections`. */
  readonly connections?: number;
  /** Why a 200 response body is not a correct answer, or undefined when it is. */
  problemWith(body: string): string | undefined;
}

function jsonProblem(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { usage?: unknown };
    return typeof parsed.usage === 'object' && parsed.usage !== null ? undefined : 'no `usage` in the body';
  } catch {
    return 'the body is not JSON';
  }
}

const streamProblem = (body: string): string | undefined =>
  body.trimEnd().endsWith('data: [DONE]') ? undefined : 'the stream does not end with `data: [DONE]`';

const messagesProblem = (body: string): string | undefined =>
  /event: message_stop\ndata: .*\n*$/.test(body) ? undefined : 'the stream does not end with `message_stop`';

const responsesStreamProblem = (body: string): string | undefined =>
  /event: response\.completed\ndata: .*\n*$/.test(body)
    ? undefined
    : 'the stream does not end with `response.completed`';

const CHAT = '/v1/chat/completions';
const RESPONSES = '/v1/responses';

/** A streamed chat call to modelc; the prompt may carry the simulator's `#sim` pacing. */
const chatStream = (name: CaseName, prompt: string): BenchCase => ({
  name,
  upstream: MODELC,
  gatewayPath: CHAT,
  headers: {},
  body: JSON.stringify({
    model: 'modelc-3.6-plus',
    stream: true,
    messages: [{ role: 'user', content: prompt }],
  }),
  problemWith: streamProblem,
});

const JSON_CASE: BenchCase = {
  name: 'json',
  upstream: MODELA,
  gatewayPath: CHAT,
  headers: {},
  body: JSON.stringify({ model: 'modela-5.5', messages: [{ role: 'user', content: 'Say hello' }] }),
  problemWith: jsonProblem,
};

/** Where the load generator puts a new id in each request's body (load.ts). */
export const NEW_ID = '[<id>]';

/**
 * `body` with a new id at the end of its prompt (the last message's text, or `input`) in every request:
 * no two requests are the same call, so a response cache misses each one.
 */
export function uniquePrompt(body: string): string {
  const call = JSON.parse(body) as { messages?: { content: string }[]; input?: string };
  const last = call.messages?.at(-1);
  if (last) last.content = `${last.content} ${NEW_ID}`;
  else if (typeof call.input === 'string') call.input = `${call.input} ${NEW_ID}`;
  else throw new Error('the body has no prompt to make unique');
  return JSON.stringify(call);
}

/** The connections `benchCase` is sent over in a run of `runConnections`. */
export const connectionsFor = (benchCase: BenchCase, runConnections: number): number =>
  benchCase.connections ?? runConnections;

export const CASES: Readonly<Record<CaseName, BenchCase>> = {
  json: JSON_CASE,
  'json-10': { ...JSON_CASE, name: 'json-10', connections: 10 },
  stream: chatStream('stream', 'Say hello'),
  'stream-paced': chatStream('stream-paced', 'Say hello #sim tps=2000'),
  messages: {
    name: 'messages',
    upstream: MODELD,
    gatewayPath: '/v1/messages',
    headers: { 'modeld-version': '2023-06-01' },
    body: JSON.stringify({
      model: 'modeld-sonnet-4-6',
      max_tokens: 256,
      stream: true,
      messages: [{ role: 'user', content: 'Say hello' }],
    }),
    problemWith: messagesProblem,
  },
  responses: {
    name: 'responses',
    upstream: MODELA,
    gatewayPath: RESPONSES,
    headers: {},
    body: JSON.stringify({ model: 'modela-5.5', input: 'Say hello' }),
    problemWith: jsonProblem,
  },
  cached: {
    name: 'cached',
    upstream: MODELA,
    gatewayPath: CHAT,
    headers: {},
    body: JSON.stringify({ model: 'modela-5.5', messages: [{ role: 'user', content: 'Say hello' }] }),
    problemWith: jsonProblem,
  },
  'responses-stream': {
    name: 'responses-stream',
    upstream: MODELC,
    gatewayPath: RESPONSES,
    headers: {},
    body: JSON.stringify({ model: 'modelc-3.6-plus', stream: true, input: 'Say hello' }),
    problemWith: responsesStreamProblem,
  },
};
