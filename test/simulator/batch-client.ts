/**
 * The official SDKs pointed at the simulator's batch APIs (modela's Files and Batch APIs, modeld's Message
 * Batches), and what the batch tests share: input files, output lines, the `/_sim/batches` control.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import type { RunningSimulator } from '../../simulator/server';
import { until } from '../helpers/wait';

export type Json = Record<string, unknown>;

export const MODELA_KEY = 'sim-modela-key';
export const MODELD_HEADERS = { 'x-api-key': 'sim-modeld-key', 'modeld-version': '2023-06-01' } as const;

/** `openai` at modela's `/v1`, as a user points it at the vendor. */
export const openAiClient = (sim: RunningSimulator): OpenAI =>
  new OpenAI({ baseURL: `${sim.url}/modela/v1`, apiKey: MODELA_KEY, maxRetries: 0 });

/** `@anthropic-ai/sdk` at modeld, with the contract's version header. */
export const anthropicClient = (sim: RunningSimulator): Anthropic =>
  new Anthropic({
    baseURL: `${sim.url}/modeld`,
    apiKey: MODELD_HEADERS['x-api-key'],
    defaultHeaders: { 'modeld-version': MODELD_HEADERS['modeld-version'] },
    maxRetries: 0,
  });

/** A batch input file: a line per body, to `endpoint`, with custom ids `c1`, `c2`, … */
export const inputFile = (endpoint: string, bodies: readonly unknown[]): string =>
  bodies
    .map((body, i) => `${JSON.stringify({ custom_id: `c${i + 1}`, method: 'POST', url: endpoint, body })}\n`)
    .join('');

/** A chat body asking `text`. */
export const chatBody = (text: string, model = 'modela-5.5'): Json => ({
  model,
  messages: [{ role: 'user', content: text }],
});

/** Uploads `text` as `name` for batches. */
export async function upload(client: OpenAI, text: string, name = 'in.jsonl'): Promise<OpenAI.FileObject> {
  return client.files.create({ file: await toFile(Buffer.from(text), name), purpose: 'batch' });
}

/** Uploads the bodies as an input file and starts a batch over them. */
export async function startBatch(
  client: OpenAI,
  endpoint: '/v1/chat/completions' | '/v1/embeddings' | '/v1/responses',
  bodies: readonly unknown[],
): Promise<OpenAI.Batch> {
  const file = await upload(client, inputFile(endpoint, bodies));
  return client.batches.create({ input_file_id: file.id, endpoint, completion_window: '24h' });
}

/** Polls the batch until it has `status` (the wait's deadline). */
export function untilStatus(client: OpenAI, id: string, status: string): Promise<OpenAI.Batch> {
  return until(
    () => client.batches.retrieve(id),
    (batch) => batch.status === status,
    { what: `batch ${id} ${status}` },
  );
}

/** One line of a batch's output or error file. */
export interface OutputLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: Json };
  error: null;
}

/** A file's lines, read with the SDK. */
export async function fileLines(client: OpenAI, id: string): Promise<OutputLine[]> {
  const text = await (await client.files.content(id)).text();
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as OutputLine);
}

/** The answer of the same call made alone, straight to the simulator. */
export async function singleCall(sim: RunningSimulator, endpoint: string, body: unknown): Promise<Json> {
  const res = await fetch(`${sim.url}/modela${endpoint}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MODELA_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Json;
}

/** `POST /_sim/batches`: how long batches created from now on take. */
export async function setDuration(
  sim: RunningSimulator,
  body: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${sim.url}/_sim/batches`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** What an SDK call rejected with (its API error: `status`, `error`); a failure when it resolved. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to fail');
}
