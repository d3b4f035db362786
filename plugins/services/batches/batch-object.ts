/**
 * A batch as OpenAI's Batch object, read from the task: the status in OpenAI's words (a running batch
 * is `cancelling` once asked to stop, `finalizing` while it writes its files; an expired one ended
 * `failed` with the code `batch_expired`), and each `*_at` from the task's status history. Unix seconds.
 */
import type { TaskStatus, VideoTask } from '../../../core/kit/task';
import { UNANSWERED } from './batch-output';
import { batchOf } from './batch-work';

const EXPIRED = UNANSWERED.expired.code;

export type OpenAiBatchStatus =
  | 'validating'
  | 'in_progress'
  | 'finalizing'
  | 'completed'
  | 'failed'
  | 'expired'
  | 'cancelling'
  | 'cancelled';

const seconds = (ms: number | null | undefined): number | null =>
  ms === null || ms === undefined ? null : Math.floor(ms / 1000);

export function batchStatus(task: VideoTask): OpenAiBatchStatus {
  const work = batchOf(task);
  switch (task.status) {
    case 'queued':
      return task.cancel_requested_at === undefined ? 'validating' : 'cancelling';
    case 'running':
      if (task.cancel_requested_at !== undefined) return 'cancelling';
      return work.finalizing_at === null ? 'in_progress' : 'finalizing';
    case 'succeeded':
      return 'completed';
    case 'failed':
      return task.error?.code === EXPIRED ? 'expired' : 'failed';
    case 'cancelled':
      return 'cancelled';
  }
}

export function batchObject(task: VideoTask) {
  const work = batchOf(task);
  const status = batchStatus(task);
  const at = (s: TaskStatus): number | null => seconds(task.history.find((h) => h.status === s)?.at);
  const ended = (s: OpenAiBatchStatus): number | null => (status === s ? seconds(task.finished_at) : null);
  return {
    id: task.id,
    object: 'batch',
    endpoint: work.endpoint,
    model: task.model,
    errors: null,
    input_file_id: work.input_file_id,
    completion_window: work.completion_window,
    status,
    output_file_id: work.output_file_id,
    error_file_id: work.error_file_id,
    created_at: seconds(task.created_at),
    in_progress_at: at('running'),
    expires_at: seconds(work.expires_at),
    finalizing_at: seconds(work.finalizing_at),
    completed_at: ended('completed'),
    failed_at: ended('failed'),
    expired_at: ended('expired'),
    cancelling_at: seconds(task.cancel_requested_at),
    cancelled_at: ended('cancelled'),
    request_counts: { total: work.total, completed: work.completed, failed: work.failed },
    metadata: work.metadata,
  };
}
