import type { JsonObject } from '../base/json';

/**
 * A video task as the gateway keeps it: its own id (never the upstream's), who owns it, where it went,
 * its normalised status, and the poller's bookkeeping. Times are Unix milliseconds.
 */

export const TASK_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** A status may only move to a higher rank: queued → running → one of the three terminal states. */
export const STATUS_RANK: Readonly<Record<TaskStatus, number>> = {
  queued: 0,
  running: 1,
  succeeded: 2,
  failed: 2,
  cancelled: 2,
};

export const isTerminal = (status: TaskStatus): boolean => STATUS_RANK[status] === 2;

/** Whether a task may go from `from` to `to`: forward, or staying where it is (a bookkeeping update). */
export const canMove = (from: TaskStatus, to: TaskStatus): boolean =>
  from === to || STATUS_RANK[to] > STATUS_RANK[from];

export interface TaskError {
  readonly code: string;
  readonly message: string;
}

/** What the upstream delivered, as billing needs it. */
export interface TaskUsage {
  /** Seconds of video produced. */
  readonly video_seconds?: number;
  /** Upstream tokens (videob bills in tokens). */
  readonly tokens?: number;
  /** The resolution the upstream says it made, where it says (it wins over the one asked for). */
  readonly resolution?: string;
}

/** What the gateway read from the submitted body for billing and display. */
export interface TaskParams {
  readonly resolution?: string;
  readonly duration_s?: number;
}

/** A poller's claim on a task: only the owner may change it until `until`. */
export interface Lease {
  readonly owner: string;
  readonly until: number;
}

export interface Idempotency {
  readonly key: string;
  /** SHA-256 of the submitted body: the same key with another body is a conflict. */
  readonly body_hash: string;
}

/** One step of a task's status history: the status it moved to, and when (Unix ms). */
export interface StatusChange {
  readonly status: TaskStatus;
  readonly at: number;
}

export interface VideoTask {
  readonly id: string;
  /**
   * Absent for a video task. Otherwise the kind of work it is (`batch`): the task worker of that kind
   * (TaskWorker) does each of its steps, and keeps its own state in `work`.
   */
  readonly kind?: string;
  /** A worker's state of a task of its kind, stored and changed as a whole; absent for video. */
  readonly work?: JsonObject;
  /**
   * Unix ms a client asked for the task to be cancelled (TaskStore.requestCancel); its worker acts on
   * it at its next step. Absent: never asked.
   */
  readonly cancel_requested_at?: number;
  /**
   * What a task of another kind than video still holds against its key's and team's budgets, kept by its
   * worker as its work is done (a batch's lines not yet sent), so a restart holds it again. Absent for
   * video, whose hold is its estimate.
   */
  readonly held_micros?: number;
  /** The API key that submitted it (null when the pipeline has no auth stage); only it may read the task. */
  readonly key_id: string | null;
  /** The key's team when the task was submitted; its bill goes to that team. Absent: none. */
  readonly team_id?: string;
  readonly model: string;
  /** The configured upstream (its `upstreams:` name) and the model id it knows. */
  readonly upstream: string;
  readonly upstream_model: string;
  /** The video protocol the task was submitted by (`generic`, `native-a`, `native-b`). */
  readonly protocol: string;
  readonly request_id: string;
  readonly params: TaskParams;
  /** Null until the upstream accepted the task. */
  readonly upstream_task_id: string | null;
  readonly status: TaskStatus;
  /** Every status the task has had, in order, from `queued` at `created_at`; kept by the store. */
  readonly history: readonly StatusChange[];
  readonly video_url: string | null;
  readonly error: TaskError | null;
  readonly usage: TaskUsage | null;
  readonly created_at: number;
  readonly updated_at: number;
  readonly finished_at: number | null;
  /** After this the poller gives up and fails the task. */
  readonly deadline_at: number;
  readonly next_poll_at: number;
  /** Polls answered by the upstream. */
  readonly polls: number;
  /** Transient poll failures in a row (they set the backoff). */
  readonly poll_errors: number;
  readonly lease: Lease | null;
  /** True once the usage record of a succeeded task is written. */
  readonly billed: boolean;
  /** The usage record's cost once billed; null before, for tasks never billed, and for unpriced models. */
  readonly cost_micros: number | null;
  readonly idempotency: Idempotency | null;
  /**
   * The submit's span as W3C `traceparent`, when the submit was traced: the task's polls link to it and
   * its billing continues its trace, on whichever instance does them.
   */
  readonly traceparent?: string;
}

/**
 * The fields an update may change; `updated_at` is set by the store. The model, upstream and params
 * change only when a submit that created nothing moves to a fallback (submission.ts).
 */
export type TaskChange = Partial<
  Pick<
    VideoTask,
    | 'model'
    | 'upstream'
    | 'upstream_model'
    | 'params'
    | 'upstream_task_id'
    | 'status'
    | 'video_url'
    | 'error'
    | 'usage'
    | 'finished_at'
    | 'next_poll_at'
    | 'polls'
    | 'poll_errors'
    | 'lease'
    | 'billed'
    | 'cost_micros'
    | 'idempotency'
    | 'work'
    | 'held_micros'
  >
>;

/** What every new task starts as: queued at `now`, nothing heard from its upstream, never polled, unbilled. */
export const newTaskState = (now: number) =>
  ({
    upstream_task_id: null,
    status: 'queued',
    history: [{ status: 'queued', at: now }],
    video_url: null,
    error: null,
    usage: null,
    created_at: now,
    updated_at: now,
    finished_at: null,
    next_poll_at: now,
    polls: 0,
    poll_errors: 0,
    billed: false,
    cost_micros: null,
  }) satisfies Partial<VideoTask>;

/**
 * A lease given up by `owner`: free at once on any clock, and it names the poller that should take the
 * task's next turn (the others wait their takeover time first; see TaskPoller).
 */
export const handedBack = (owner: string): Lease => ({ owner, until: 0 });

/** Whether the poller still has work on a task: reach a terminal state, or bill a success. */
export const needsWork = (task: Pick<VideoTask, 'status' | 'billed'>): boolean =>
  !isTerminal(task.status) || (task.status === 'succeeded' && !task.billed);

/** The history after a change to `status` at `now`: a move to another status is appended, nothing else is. */
export const nextHistory = (
  task: Pick<VideoTask, 'status' | 'history'>,
  status: TaskStatus | undefined,
  now: number,
): readonly StatusChange[] =>
  status === undefined || status === task.status ? task.history : [...task.history, { status, at: now }];

/** A task as stored: those written before `history` and `cost_micros` existed lack them. */
export type StoredTask = Omit<VideoTask, 'history' | 'cost_micros'> &
  Partial<Pick<VideoTask, 'history' | 'cost_micros'>>;

/**
 * A stored task as a whole VideoTask. An old one's history is rebuilt from what it kept: queued at
 * `created_at`, then its current status when it ended (or last changed), if it has moved on.
 */
export function normalizeTask(task: StoredTask): VideoTask {
  const queued: StatusChange = { status: 'queued', at: task.created_at };
  const history =
    task.history ??
    (task.status === 'queued'
      ? [queued]
      : [queued, { status: task.status, at: task.finished_at ?? task.updated_at }]);
  return { ...task, history, cost_micros: task.cost_micros ?? null };
}
