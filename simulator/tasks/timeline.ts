import type { Controls } from '../controls';

/**
 * Where a task is in its life, in the simulator's own words (the same as Ark's). Each family
 * renders these in its vendor's words.
 */
export type TaskPhase = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** How a task ends. */
export type TaskOutcome = 'succeeded' | 'failed' | 'cancelled';

/** A task's behaviour, fixed at submit from the controls and kept for its whole life. */
export interface TaskPlan {
  /** Milliseconds after submit that the task stays queued. */
  readonly queueMs: number;
  /** Milliseconds after submit that the task reaches its outcome. */
  readonly taskMs: number;
  readonly outcome: TaskOutcome;
  /** Polls that answer a transient 500 before any other answer. */
  readonly pollErrors: number;
  /** Polls after those that answer "unknown task" (families that have such an answer). */
  readonly unknownPolls: number;
  /** Delay before each poll's answer. */
  readonly pollLatencyMs: number;
}

/** The request details every video family keeps: what the task reports and bills by. */
export interface VideoSpec {
  /** In the vendor's spelling, e.g. `720P` or `720p`. */
  readonly resolution: string;
  /** Seconds of video. */
  readonly duration: number;
  /** `w:h`, or null when the vendor's request has no ratio. */
  readonly ratio: string | null;
}

/** A submitted task. */
export interface SimTask {
  /** Name of the family that issued it; only that family's polls see it. */
  readonly family: string;
  /** The upstream task id, in the vendor's format. */
  readonly id: string;
  readonly model: string;
  readonly video: VideoSpec;
  readonly plan: TaskPlan;
  /** Epoch milliseconds. */
  readonly submittedAt: number;
  /** Where the finished video is served. */
  readonly videoUrl: string;
}

/** What one poll answers before the task's status, by its 1-based number. */
export type PollFate = 'error' | 'unknown' | 'status';

const DEFAULT_TASK_MS = 2000;
// The queue takes the first quarter of the task unless `queue_ms` says otherwise.
const QUEUE_SHARE = 4;

/** `cancel` wins over `fail`: a cancelled task never ran to its failure. */
const outcomeOf = (c: Controls): TaskOutcome =>
  c.cancel === true ? 'cancelled' : c.fail === true ? 'failed' : 'succeeded';

/** The plan the controls of a submit ask for; `queue_ms` beyond `task_ms` means no running phase. */
export function planTask(c: Controls): TaskPlan {
  const taskMs = c.taskMs ?? DEFAULT_TASK_MS;
  return {
    queueMs: Math.min(c.queueMs ?? Math.floor(taskMs / QUEUE_SHARE), taskMs),
    taskMs,
    outcome: outcomeOf(c),
    pollErrors: c.pollErrors ?? 0,
    unknownPolls: c.unknownPolls ?? 0,
    pollLatencyMs: c.pollLatencyMs ?? 0,
  };
}

/** The phase at epoch-ms `now`: queued until `queueMs`, running until `taskMs`, then the outcome. */
export function phaseAt(task: SimTask, now: number): TaskPhase {
  const elapsed = now - task.submittedAt;
  if (elapsed < task.plan.queueMs) return 'queued';
  return elapsed < task.plan.taskMs ? 'running' : task.plan.outcome;
}

/** Milliseconds after submit that each phase begins. */
const PHASE_OFFSET: Readonly<Record<TaskPhase, (plan: TaskPlan) => number>> = {
  queued: () => 0,
  running: (p) => p.queueMs,
  succeeded: (p) => p.taskMs,
  failed: (p) => p.taskMs,
  cancelled: (p) => p.taskMs,
};

/** Epoch milliseconds at which the task entered `phase`. */
export const phaseStart = (task: SimTask, phase: TaskPhase): number =>
  task.submittedAt + PHASE_OFFSET[phase](task.plan);

/** The first `pollErrors` polls fail, the next `unknownPolls` find no task, the rest see the status. */
export function pollFate(plan: TaskPlan, pollNumber: number): PollFate {
  if (pollNumber <= plan.pollErrors) return 'error';
  return pollNumber <= plan.pollErrors + plan.unknownPolls ? 'unknown' : 'status';
}
