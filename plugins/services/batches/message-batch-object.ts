/**
 * A batch made through Anthropic's Message Batches API, as its MessageBatch object: `in_progress`, then
 * `canceling` once asked to stop, then `ended` with its counts by result type and the URL of its results.
 * Times are RFC 3339 there.
 */
import { isTerminal, type VideoTask } from '../../../core/kit/task';
import { batchOf } from './batch-work';

const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

/** `origin`: where the client reaches the gateway, for `results_url`. */
export function messageBatchObject(task: VideoTask, origin: string) {
  const work = batchOf(task);
  const ended = isTerminal(task.status);
  const done = work.completed + work.failed;
  return {
    id: task.id,
    type: 'message_batch',
    processing_status: ended ? 'ended' : task.cancel_requested_at === undefined ? 'in_progress' : 'canceling',
    request_counts: {
      processing: ended ? 0 : Math.max(0, work.total - done),
      succeeded: work.completed,
      errored: work.failed - work.canceled - work.expired,
      canceled: work.canceled,
      expired: work.expired,
    },
    ended_at: ended ? iso(task.finished_at) : null,
    created_at: iso(task.created_at),
    expires_at: iso(work.expires_at),
    archived_at: null,
    cancel_initiated_at: iso(task.cancel_requested_at),
    results_url: ended ? `${origin}/v1/messages/batches/${encodeURIComponent(task.id)}/results` : null,
  };
}
