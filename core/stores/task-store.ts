/**
 * Video tasks. Every change is conditional and atomic in the store itself, so several pollers (in one
 * process or on several instances) can share it: a task is changed only by the holder of its lease, and
 * its status only moves forward.
 *
 * Clocks: `now` is the caller's clock. A store shared by several hosts (MongoDB) judges leases on its own
 * clock instead: a lease then lasts `lease.until - now` from the store's present, and is live while its
 * `until` is after the store's present, so hosts whose clocks disagree still never hold one task at once.
 * One process's store (embedded) uses `now` as given.
 */
import { token } from '../base/token';
import type { Lease, TaskChange, TaskStatus, VideoTask } from './video-task';

/** Raised by `insert` when the key already submitted a task under the same idempotency key. */
export class IdempotencyKeyTaken extends Error {
  constructor(readonly existing: VideoTask) {
    super(`idempotency key already used by task ${existing.id}`);
    this.name = 'IdempotencyKeyTaken';
  }
}

/** TaskPageQuery.kind for tasks of every kind, video included. */
export const ANY_KIND = '*';

/** A page of tasks, newest first (`created_at`, then `id`, both descending). */
export interface TaskPageQuery {
  readonly limit: number;
  /** Only tasks strictly after this one in that order: the last task of the previous page. */
  readonly after?: { readonly created_at: number; readonly id: string };
  readonly status?: TaskStatus;
  readonly key_id?: string;
  readonly team_id?: string;
  readonly model?: string;
  /** Only tasks of this kind (VideoTask.kind); absent, only video tasks; ANY_KIND, tasks of every kind. */
  readonly kind?: string;
}

type PagePosition = Pick<VideoTask, 'created_at' | 'id'>;

/** The page order as a comparator: negative when `a` comes before `b`. */
export const newestFirst = (a: PagePosition, b: PagePosition): number =>
  b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Conditions of `acquire` beyond a free lease. */
export interface AcquireOptions {
  /**
   * Only if the task is due (`next_poll_at <= now`): a poll queued on a stale view of the task is dropped
   * when another poller has polled it meanwhile and moved its next poll on.
   */
  readonly onlyIfDue?: boolean;
}

export interface TaskStore {
  /**
   * Stores a new task, durably, before resolving. Throws IdempotencyKeyTaken when the task carries an
   * idempotency key that the same API key used for another task created after `idempotentSince`; an
   * older use of the key is released, so the new task takes it.
   */
  insert(task: VideoTask, idempotentSince: number): Promise<void>;
  get(id: string): Promise<VideoTask | undefined>;
  /**
   * Takes the lease on a task that still needs work, if nobody holds it or the holder's lease has
   * expired at `now` (the owner may renew its own), and, with `onlyIfDue`, if it is due at `now`.
   * Returns the task as leased, or undefined.
   */
  acquire(id: string, lease: Lease, now: number, options?: AcquireOptions): Promise<VideoTask | undefined>;
  /**
   * Applies `change` if `owner` holds the lease and the status does not move backwards. Returns the
   * updated task, or undefined when the condition failed (the lease was lost, or the change was stale).
   * A change that sets `idempotency` to null frees the task's key in the same write: the next insert
   * with that key is a new task.
   */
  update(id: string, owner: string, change: TaskChange, now: number): Promise<VideoTask | undefined>;
  /**
   * Stores what the submit that created the task learnt (the upstream's task id, or its refusal), whoever
   * holds the lease: only while the task has no upstream id yet and still needs work, i.e. nobody has
   * failed it as interrupted. A submit that outlived its lease still records the job it started, so the
   * job is polled and billed. Returns the updated task, or undefined when that condition failed.
   */
  settleSubmit(id: string, change: TaskChange, now: number): Promise<VideoTask | undefined>;
  /**
   * Frees the idempotency key of a task that no longer needs work, if it still holds `key`, so that a
   * new task may take the key within the window. For a finished task only: nobody leases one, so this
   * cannot race a lease holder. Returns the updated task, or undefined when the condition failed. (Tasks
   * whose submit was interrupted used to keep their key; a retry frees it with this.)
   */
  freeIdempotencyKey(id: string, key: string, now: number): Promise<VideoTask | undefined>;
  /**
   * Records a client's request to cancel a task that still needs work, whoever holds its lease (a flag
   * only its worker acts on, which no update clears), and makes it due at `now`. The first request's
   * time stays. Returns the updated task, or undefined when it needs no more work (or does not exist).
   */
  requestCancel(id: string, now: number): Promise<VideoTask | undefined>;
  /** Tasks that need work and are due at `now` with no live lease, earliest due first. */
  due(now: number, limit: number): Promise<VideoTask[]>;
  page(query: TaskPageQuery): Promise<VideoTask[]>;
  /** Calls `listener` with every inserted or changed task (after the change is stored). Returns a stop function. */
  watch(listener: (task: VideoTask) => void): () => void;
  /** Video tasks (those without a kind) by status. */
  countByStatus(): Promise<Record<TaskStatus, number>>;
  close(): Promise<void>;
}

/** The task store, for plugins whose work the poller drives (TaskWorker). */
export const TaskStoreToken = token<TaskStore>('TaskStore');
