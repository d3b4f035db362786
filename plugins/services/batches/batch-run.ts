/** One step of a batch, as each way of running it (the gateway's own, a vendor's) sees it. */
import type { TaskChange, TaskStep, VideoTask } from '../../../core/kit/task';
import { UNANSWERED, type Unanswered } from './batch-output';
import type { BatchWork } from './batch-work';
import type { InputLine } from './input-lines';

export interface BatchRun {
  readonly task: VideoTask;
  readonly work: BatchWork;
  /** The input file's lines; undefined when the file is gone. */
  readonly input: readonly InputLine[] | undefined;
  readonly step: TaskStep;
  /** Each line's estimate, held against budgets until it is sent. */
  estimates(): readonly number[];
}

/** Writes a batch's files and ends it (batch-finalize.ts). */
export type Finalize = (run: BatchRun, ending: Unanswered | 'done') => Promise<TaskChange>;

/** Why a batch must end now, whoever runs it: cancelled, expired, or its input file gone. */
export function stopped(run: BatchRun, now: number): Unanswered | undefined {
  if (run.task.cancel_requested_at !== undefined) return UNANSWERED.cancelled;
  if (now >= run.work.expires_at) return UNANSWERED.expired;
  if (!run.input) return UNANSWERED.inputGone;
  return undefined;
}
