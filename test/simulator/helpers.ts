import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Clock } from '@sinonjs/fake-timers';
import type { RunningSimulator } from '../../simulator/server';
import { until } from '../helpers/wait';

/** The chat families and how a client reaches each. */
export const FAMILIES = {
  modela: { path: '/modela/v1/chat/completions', key: 'sim-modela-key' },
  modelb: { path: '/modelb/v1beta/openai/chat/completions', key: 'sim-modelb-key' },
  modelc: { path: '/modelc/compatible-mode/v1/chat/completions', key: 'sim-modelc-key' },
} as const;

/** A family's name. */
export type FamilyName = keyof typeof FAMILIES;

/** Every family name, for tests that run once per family. */
export const FAMILY_NAMES = Object.keys(FAMILIES) as FamilyName[];

/** A one-message conversation. */
export const user = (content: string): { role: string; content: string }[] => [{ role: 'user', content }];

/** `usage` as the families send it (details vary by family). */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  completion_tokens_details?: { reasoning_tokens: number };
}

/** A tool call, whole (message) or as a fragment (delta). */
export interface ToolCall {
  index?: number;
  id?: string;
  type?: string;
  function: { name?: string; arguments: string };
}

/** A message, or the delta of a chunk. */
export interface Message {
  role?: string;
  content?: string | null;
  reasoning_content?: string | null;
  tool_calls?: ToolCall[];
}

/** One choice of a completion or a chunk. */
export interface Choice {
  index: number;
  message?: Message;
  delta?: Message;
  finish_reason: string | null;
}

/** A completion body or a stream chunk. */
export interface Completion {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: Choice[];
  usage?: Usage | null;
  error?: unknown;
}

const OPENAI_ERROR_KEYS = { message: String, type: String };

/** A `t.match` pattern for a family's error body with the given status. */
export function errorShape(family: FamilyName, status: number): object {
  const shapes: Record<FamilyName, object> = {
    modela: { error: OPENAI_ERROR_KEYS },
    modelb: { error: { code: status, message: String, status: String } },
    modelc: { error: { ...OPENAI_ERROR_KEYS, code: String }, id: /^chatcmpl-/, request_id: /^req_/ },
  };
  return shapes[family];
}

/** POSTs a chat request with the family's key (override with an `authorization` header). */
export function chat(
  sim: RunningSimulator,
  family: FamilyName,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(sim.url + FAMILIES[family].path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${FAMILIES[family].key}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A stream as read by a client: the JSON events, whether `[DONE]` came, and how reading ended. */
export interface SseResult {
  readonly events: Completion[];
  readonly done: boolean;
  /** The error the body ended with (a cut connection), or null when it ended cleanly. */
  readonly error: unknown;
  /** Arrival time of each JSON event, ms since reading started. */
  readonly times: number[];
}

/** Feeds an SSE body to `onEvent` until it ends; returns the error it ended with, or null. */
async function feedSse(res: Response, onEvent: (ev: EventSourceMessage) => void): Promise<unknown> {
  const parser = createParser({ onEvent });
  const decoder = new TextDecoder();
  try {
    const body = (res.body ?? []) as AsyncIterable<Uint8Array>;
    for await (const chunk of body) parser.feed(decoder.decode(chunk, { stream: true }));
  } catch (err) {
    return err;
  }
  return null;
}

/** Reads an SSE response to its end, recording a broken connection instead of throwing. */
export async function readSse(res: Response): Promise<SseResult> {
  const events: Completion[] = [];
  const times: number[] = [];
  let done = false;
  const started = Date.now();
  const error = await feedSse(res, (ev) => {
    if (ev.data === '[DONE]') done = true;
    else {
      events.push(JSON.parse(ev.data) as Completion);
      times.push(Date.now() - started);
    }
  });
  return { events, done, error, times };
}

/**
 * Settles `reading` (a stream read to its end) while moving `clock`, a fake clock the test installed
 * for the whole process, a millisecond at a time: the simulator paces the stream by it, and the arrival
 * times the reader records are its readings. Each step also lets real I/O run, and a stalled machine
 * moves the clock no further, so the gaps seen are the simulator's own.
 */
export async function onClock<T>(clock: Clock, reading: Promise<T>, limitMs = 10_000): Promise<T> {
  let settled = false;
  const done = reading.finally(() => (settled = true));
  for (let moved = 0; !settled; moved++) {
    if (moved >= limitMs) throw new Error(`the stream did not end in ${limitMs} ms of the fake clock`);
    await clock.tickAsync(1);
  }
  return done;
}

/** The text a stream's content deltas add up to, per choice index. */
export function streamedText(events: readonly Completion[]): string[] {
  const out: string[] = [];
  for (const ev of events) {
    for (const c of ev.choices) {
      const text = c.delta?.content;
      if (typeof text === 'string') out[c.index] = (out[c.index] ?? '') + text;
    }
  }
  return out;
}

/** Polls `probe` until it returns a value (`until`'s deadline); the failure names `what`. */
export async function untilDefined<T>(probe: () => T | undefined, what: string): Promise<T> {
  return (await until(probe, (value) => value !== undefined, { what }))!;
}

/** The `modeld` family (Messages) and how a client reaches it. */
export const MODELD = { path: '/modeld/v1/messages', key: 'sim-modeld-key', version: '2023-06-01' } as const;

/** A content block of a Messages reply, whole or as `content_block_start` opens it. */
export interface ContentBlock {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

/** Messages `usage`. */
export interface MessageUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
  service_tier: string;
}

/** A Messages reply, or the `message` of `message_start`. */
export interface MessageReply {
  id: string;
  type: string;
  role: string;
  model: string;
  content: ContentBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: MessageUsage;
}

/** The JSON of one Messages stream event; which keys are set depends on `type`. */
export interface MessageEvent {
  type: string;
  index?: number;
  message?: MessageReply;
  content_block?: ContentBlock;
  delta?: {
    type?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    partial_json?: string;
    stop_reason?: string;
  };
  usage?: { output_tokens: number };
  error?: { type: string; message: string };
}

/**
 * POSTs a Messages request with the family's `x-api-key` and version header. A header given as
 * undefined is left out, so tests can send a request without either.
 */
export function messages(
  sim: RunningSimulator,
  body: unknown,
  headers: Record<string, string | undefined> = {},
): Promise<Response> {
  const all: Record<string, string | undefined> = {
    'x-api-key': MODELD.key,
    'modeld-version': MODELD.version,
    'content-type': 'application/json',
    ...headers,
  };
  return fetch(sim.url + MODELD.path, {
    method: 'POST',
    headers: Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined)),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A Messages stream as read by a client: each event's SSE name and JSON, and how reading ended. */
export interface NamedSseResult {
  /** The `event:` field of each event, in order. */
  readonly names: (string | undefined)[];
  readonly events: MessageEvent[];
  /** The error the body ended with (a cut connection), or null when it ended cleanly. */
  readonly error: unknown;
  /** Arrival time of each event, ms since reading started. */
  readonly times: number[];
}

/** Reads a Messages stream to its end, keeping each event's name. */
export async function readNamedSse(res: Response): Promise<NamedSseResult> {
  const names: (string | undefined)[] = [];
  const events: MessageEvent[] = [];
  const times: number[] = [];
  const started = Date.now();
  const error = await feedSse(res, (ev) => {
    names.push(ev.event);
    events.push(JSON.parse(ev.data) as MessageEvent);
    times.push(Date.now() - started);
  });
  return { names, events, error, times };
}
