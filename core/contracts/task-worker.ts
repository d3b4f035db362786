/**
 * Work the poller drives that is not a video task: a batch the gateway runs or a vendor runs, advanced
 * one step at a time, each step under the task's lease (renewed while the step runs), on whichever
 * instance's poller takes it. The worker owns its tasks' `work` state and their billing.
 */
import type { TaskChange, VideoTask } from '../stores/video-task';

/** What a step may do besides returning its change. */
export interface TaskStep {
  /**
   * Stores a change at once, under the step's lease, before the step goes on: what must be on disk
   * before the step does something it must never do twice (send a batch's next lines). Resolves to the
   * task as stored, or undefined when the lease was lost: the step must then stop.
   */
  save(change: TaskChange): Promise<VideoTask | undefined>;
}

export interface TaskWorker {
  /** The `kind` of the tasks it works on (VideoTask.kind). */
  readonly kind: string;
  /** Steps run at once by one instance's poller. */
  readonly concurrency: number;
  /**
   * One step of the task. Returns the change that ends the step: its progress, and either its next
   * `next_poll_at` with the lease handed back, or a terminal status (with `billed: true` once every
   * record it owes is written). Throws on a transient failure: the poller tries again after a backoff.
   */
  step(task: VideoTask, step: TaskStep): Promise<TaskChange>;
}
