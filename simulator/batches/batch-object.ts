import type { OpenAiBatch } from './batch';
import { batchUsage } from './usage';

/** How long the vendor gives a batch: its `completion_window`. */
const WINDOW_MS = 24 * 3_600_000;

const seconds = (ms: number): number => Math.floor(ms / 1000);
const secondsOrNull = (ms: number | null): number | null => (ms === null ? null : seconds(ms));

/** `request_counts`: every request once validation accepted them, and how each answered so far. */
function requestCounts(batch: OpenAiBatch, validated: boolean): Record<string, number> {
  const results = batch.run?.results ?? [];
  const completed = results.filter((r) => r.status === 200).length;
  return {
    total: validated ? (batch.run?.lines.length ?? 0) : 0,
    completed,
    failed: results.length - completed,
  };
}

/**
 * The Batch object at epoch-ms `now` (its lines already caught up), member for member as the API writes
 * it. What validation establishes, the model and the usage so far, appears once validation is over.
 */
export function batchObject(batch: OpenAiBatch, now: number): Record<string, unknown> {
  const { request, input, createdAt } = batch.spec;
  const status = batch.status(now);
  const validated = batch.run !== null && batch.reached(batch.validatedAt, now);
  const cancelEnd = batch.cancelledAt === null ? null : batch.cancelledAt + batch.cancelMs;
  const body: Record<string, unknown> = {
    id: batch.id,
    object: 'batch',
    endpoint: request.endpoint,
    errors: !input.ok && status === 'failed' ? { object: 'list', data: input.errors } : null,
    input_file_id: request.inputFileId,
    completion_window: request.completionWindow,
    status,
    output_file_id: batch.files?.output ?? null,
    error_file_id: batch.files?.error ?? null,
    created_at: seconds(createdAt),
    in_progress_at: validated ? seconds(batch.validatedAt) : null,
    expires_at: seconds(createdAt + WINDOW_MS),
    finalizing_at: batch.reached(batch.finalizingAt, now) && batch.run ? seconds(batch.finalizingAt) : null,
    completed_at: status === 'completed' ? seconds(batch.completesAt) : null,
    failed_at: status === 'failed' ? seconds(batch.validatedAt) : null,
    expired_at: null,
    cancelling_at: secondsOrNull(batch.cancelledAt),
    cancelled_at: status === 'cancelled' ? secondsOrNull(cancelEnd) : null,
    request_counts: requestCounts(batch, validated),
    metadata: request.metadata,
  };
  if (!validated || !input.ok) return body;
  return { ...body, model: input.model, usage: batchUsage(batch.run?.results ?? []) };
}
