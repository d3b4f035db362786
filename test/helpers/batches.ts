/** Batch input files and waiting for batches, as tests of the batches endpoints need them. */
import type OpenAI from 'openai';
import { toFile } from 'openai';
import type { UsageRecord, UsageStore } from '../../core/stores/usage-store';
import { until } from './wait';

export interface ChatLine {
  readonly custom_id: string;
  readonly model: string;
  readonly content: string;
}

/** A batch input file (JSONL) of requests to `url`, one per `custom_id` and body. */
export const requestLines = (url: string, lines: readonly { custom_id: string; body: object }[]): string =>
  lines.map(({ custom_id, body }) => JSON.stringify({ custom_id, method: 'POST', url, body })).join('\n') +
  '\n';

/** A batch input file (JSONL) of chat completion requests. */
export const chatLines = (lines: readonly ChatLine[]): string =>
  requestLines(
    '/v1/chat/completions',
    lines.map(({ custom_id, model, content }) => ({
      custom_id,
      body: { model, messages: [{ role: 'user', content }], max_tokens: 50 },
    })),
  );

/** Uploads `jsonl` as a batch input file. */
export const uploadBatchFile = async (client: OpenAI, jsonl: string, name = 'input.jsonl') =>
  client.files.create({ file: await toFile(Buffer.from(jsonl), name), purpose: 'batch' });

const ENDED = new Set(['completed', 'failed', 'expired', 'cancelled']);

/** The batch once it has ended, read as a client polls it. */
export const endedBatch = (client: OpenAI, id: string, timeoutMs = 20_000) =>
  until(
    () => client.batches.retrieve(id),
    (batch) => ENDED.has(batch.status),
    { timeoutMs, what: `batch ${id} to end` },
  );

/** A result file's lines, parsed. */
export async function resultLines(client: OpenAI, fileId: string): Promise<Record<string, unknown>[]> {
  const text = await (await client.files.content(fileId)).text();
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The status of the SDK error (openai's or anthropic's APIError) a call fails with; success fails the test. */
export async function failedStatus(call: Promise<unknown>): Promise<number | string> {
  try {
    await call;
  } catch (e) {
    const status = (e as { status?: unknown }).status;
    return typeof status === 'number' ? status : `not an API error: ${String(e)}`;
  }
  return 'succeeded';
}

/** The message of the error a call fails with ('' when it succeeds). */
export const failedMessage = (call: Promise<unknown>): Promise<string> =>
  call.then(
    () => '',
    (e: unknown) => String((e as Error).message),
  );

/** Creates a batch on an uploaded file (of chat completions unless `endpoint` says), as a client does. */
export const createBatch = (
  client: OpenAI,
  fileId: string,
  endpoint: OpenAI.Batches.BatchCreateParams['endpoint'] = '/v1/chat/completions',
) => client.batches.create({ input_file_id: fileId, endpoint, completion_window: '24h' });

/** The usage records of a batch's lines. */
export const batchRecords = async (usage: UsageStore, batchId: string): Promise<UsageRecord[]> =>
  (await usage.list({ limit: 1000 })).filter((r) => r.batch_id === batchId);
