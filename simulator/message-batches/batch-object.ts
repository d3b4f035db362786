import type { MessageBatch } from './batch';

/** How long the vendor gives a batch before it expires: 24 hours. */
const EXPIRY_MS = 24 * 3_600_000;

const rfc3339 = (ms: number): string => new Date(ms).toISOString();

/** Every request counts as `processing` until the whole batch ends, as the vendor counts them. */
function requestCounts(batch: MessageBatch, ended: boolean): Record<string, number> {
  const { lines, results } = batch.run;
  const succeeded = results.filter((r) => r.status === 200).length;
  return {
    processing: ended ? 0 : lines.length,
    succeeded: ended ? succeeded : 0,
    errored: ended ? results.length - succeeded : 0,
    canceled: ended ? lines.length - results.length : 0,
    expired: 0,
  };
}

/** The Message Batch at epoch-ms `now` (its requests already caught up), member for member as the API writes it. */
export function batchObject(batch: MessageBatch, now: number): Record<string, unknown> {
  const status = batch.status(now);
  const ended = status === 'ended';
  return {
    id: batch.id,
    type: 'message_batch',
    processing_status: status,
    request_counts: requestCounts(batch, ended),
    ended_at: ended ? rfc3339(batch.endsAt) : null,
    created_at: rfc3339(batch.createdAt),
    expires_at: rfc3339(batch.createdAt + EXPIRY_MS),
    archived_at: null,
    cancel_initiated_at: batch.cancelledAt === null ? null : rfc3339(batch.cancelledAt),
    results_url: ended ? batch.spec.resultsUrl : null,
  };
}
