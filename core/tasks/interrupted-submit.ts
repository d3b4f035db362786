/**
 * A submit cut off between storing the task and storing the upstream's answer (the instance died while
 * the upstream held the call). The upstream id never came back, and neither vendor can be asked for a
 * task by a client token, so the task cannot be resumed: it fails as `submit_interrupted`, unbilled, and
 * its idempotency key is freed in the same write, so that the client's retry becomes a new submit
 * instead of replaying the dead task for the whole idempotency window. The poller does this when it
 * finds such a task; a retry that finds one first does it itself (core/tasks/submission.ts).
 */
import type { Logger } from 'pino';
import { isTerminal, type TaskChange, type TaskError, type VideoTask } from '../stores/video-task';

export const SUBMIT_INTERRUPTED: TaskError = {
  code: 'submit_interrupted',
  message: 'the gateway stopped before the upstream confirmed the task; nothing was billed',
};

/** The change that fails an interrupted submit and frees its key (conditional on the caller's lease). */
export const interruptedChange = (now: number): TaskChange => ({
  status: 'failed',
  error: SUBMIT_INTERRUPTED,
  finished_at: now,
  lease: null,
  idempotency: null,
});

/** Where a task stands whose submit may have been interrupted (see `interruption`). */
export type Interruption = 'abandoned' | 'failing' | 'failed';

/**
 * - `abandoned`: no upstream id, unfinished, and its submit lease gone or run out at `now` (the lease
 *   outlasts the upstream call, so its instance died); nobody has failed it yet.
 * - `failing`: no upstream id, unfinished, and leased since it was stored (its submit never writes
 *   again without settling it): only a poller or a retry failing it does that.
 * - `failed`: failed as `submit_interrupted` (one an older version failed may still hold its key).
 * - undefined: a submit still under way (under its own lease), or a task the upstream accepted.
 */
export function interruption(task: VideoTask, now: number): Interruption | undefined {
  if (task.status === 'failed' && task.error?.code === SUBMIT_INTERRUPTED.code) return 'failed';
  if (task.upstream_task_id !== null || isTerminal(task.status)) return undefined;
  if (task.lease === null || task.lease.until <= now) return 'abandoned';
  return task.updated_at !== task.created_at ? 'failing' : undefined;
}

/**
 * Says, for reconciliation with the vendor, that the upstream may hold a task (paid, if it ran) that the
 * gateway never learnt of: which request, upstream and model, and when it was submitted.
 */
export function warnInterrupted(logger: Logger, task: VideoTask, by: 'poller' | 'retry'): void {
  logger.warn(
    {
      task: task.id,
      request_id: task.request_id,
      upstream: task.upstream,
      model: task.model,
      upstream_model: task.upstream_model,
      key_id: task.key_id,
      submitted_at: new Date(task.created_at).toISOString(),
      failed_by: by,
    },
    'video submit interrupted: failed as submit_interrupted and its Idempotency-Key freed; an upstream task may exist that the gateway never learnt of',
  );
}
