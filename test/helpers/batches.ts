/** Batch input files and waiting for batches, as tests of the batches endpoints need them. */
import type OpenAI from 'openai';
import { toFile } from 'openai';
import { until } from './wait';

export interface ChatLine {
  readonly custom_id: string;
  readonly model: string;
  readonly content: string;
}

/** A batch input file (JSONL) of chat completion requests. */
export const chatLines = (lines: readonly ChatLine[]): string =>
  lines
    .map(({ custom_id, model, content }) =>
      JSON.stringify({
        custom_id,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model, messages: [{ role: 'user', content }], max_tokens: 50 },
      }),
    )
    .join('\n') + '\n';

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

/** Creates a batch of chat completions on an uploaded file, as a client does. */
export const createBatch = (client: OpenAI, fileId: string) =>
  client.batches.create({
    input_file_id: fileId,
    endpoint: '/v1/chat/completions',
    completion_window: '24h',
  });
