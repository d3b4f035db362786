import { createParser } from 'eventsource-parser';
import type { RunningSimulator } from '../../simulator/server';

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

/** Reads an SSE response to its end, recording a broken connection instead of throwing. */
export async function readSse(res: Response): Promise<SseResult> {
  const events: Completion[] = [];
  const times: number[] = [];
  let done = false;
  const started = Date.now();
  const parser = createParser({
    onEvent: (ev) => {
      if (ev.data === '[DONE]') done = true;
      else {
        events.push(JSON.parse(ev.data) as Completion);
        times.push(Date.now() - started);
      }
    },
  });
  const decoder = new TextDecoder();
  let error: unknown = null;
  try {
    const body = (res.body ?? []) as AsyncIterable<Uint8Array>;
    for await (const chunk of body) parser.feed(decoder.decode(chunk, { stream: true }));
  } catch (err) {
    error = err;
  }
  return { events, done, error, times };
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

/** Polls `probe` until it returns a value, failing after `ms`. */
export async function eventually<T>(probe: () => T | undefined, ms = 2000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
