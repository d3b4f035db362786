/**
 * Video tasks in one process: the live set in memory, every change appended to `tasks.jsonl` (a journal
 * of whole task snapshots, the last one per id wins) before the change is acknowledged. Writes made in
 * the same moment share one append and one fdatasync (group commit), so a crash, a SIGKILL or a power
 * cut loses no acknowledged change. The journal is compacted when it grows well past the live set.
 * Conditions (lease, forward-only status, idempotency keys) are checked and applied synchronously, so
 * several pollers in this process never race; one data directory belongs to one gateway process.
 */
import { EventEmitter } from 'node:events';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { eachLine } from './journal-lines';
import { endTornLine } from './torn-line';
import {
  canMove,
  needsWork,
  nextHistory,
  normalizeTask,
  TASK_STATUSES,
  type Lease,
  type StoredTask,
  type TaskChange,
  type TaskStatus,
  type VideoTask,
} from '../video-task';
import {
  ANY_KIND,
  IdempotencyKeyTaken,
  newestFirst,
  type AcquireOptions,
  type TaskPageQuery,
  type TaskStore,
} from '../task-store';
import { writeHealth, type StoreHealth } from '../store-health';
import { writeFileAtomic } from './atomic-file';

const JOURNAL = 'tasks.jsonl';
/** Compact when the journal holds this many times more lines than there are tasks (and enough to matter). */
const COMPACT_RATIO = 4;
const COMPACT_MIN_LINES = 10_000;

const idempotencySlot = (task: VideoTask): string | undefined =>
  task.idempotency ? `${task.key_id}\u0000${task.idempotency.key}` : undefined;

/** How often finished tasks past the retention are forgotten. */
const PURGE_EVERY_MS = 60 * 60 * 1000;

export interface EmbeddedTaskOptions {
  /** How long a task that needs no more work is kept after its last change; 0 (the default) keeps all. */
  readonly retentionMs?: number;
}

const leaseLive = (lease: Lease | null, now: number): boolean => lease !== null && lease.until > now;

export class EmbeddedTaskStore implements TaskStore {
  private readonly tasks = new Map<string, VideoTask>();
  /** Ids of the tasks that still need work, so a sweep reads those and not every task ever stored. */
  private readonly working = new Set<string>();
  /** `key_id \0 idempotency key` → task id. */
  private readonly idempotent = new Map<string, string>();
  private readonly events = new EventEmitter();
  private pending: string[] = [];
  private waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  private writing = false;
  private journalLines = 0;
  /** Set when an append failed, maybe part-way: the next one starts on a new line, not glued to the torn one. */
  private torn = false;
  /** The last append's error, until one succeeds: for readiness. */
  private failure: unknown;

  private purger: NodeJS.Timeout | undefined;

  private constructor(
    private readonly file: string,
    private handle: FileHandle,
    private readonly retentionMs: number,
  ) {
    this.events.setMaxListeners(0);
  }

  static async open(dataDir: string, options: EmbeddedTaskOptions = {}): Promise<EmbeddedTaskStore> {
    await mkdir(dataDir, { recursive: true });
    const file = join(dataDir, JOURNAL);
    const snapshots = await readJournal(file);
    const handle = await open(file, 'a+', 0o600);
    await endTornLine(handle, (await handle.stat()).size);
    const store = new EmbeddedTaskStore(file, handle, options.retentionMs ?? 0);
    for (const task of snapshots.tasks.values()) store.remember(task);
    store.journalLines = snapshots.lines;
    store.purge(Date.now());
    if (store.retentionMs > 0) {
      store.purger = setInterval(() => store.purge(Date.now()), PURGE_EVERY_MS).unref();
    }
    return store;
  }

  /**
   * Forgets the tasks that have needed no work for longer than the retention. Nothing is written: the
   * journal loses them at its next compaction, and a reopen before that skips them again.
   */
  purge(now: number): number {
    if (this.retentionMs <= 0) return 0;
    let purged = 0;
    for (const task of this.tasks.values()) {
      if (this.working.has(task.id) || task.updated_at > now - this.retentionMs) continue;
      this.tasks.delete(task.id);
      const slot = idempotencySlot(task);
      if (slot && this.idempotent.get(slot) === task.id) this.idempotent.delete(slot);
      purged++;
    }
    return purged;
  }

  async insert(task: VideoTask, idempotentSince: number): Promise<void> {
    if (this.tasks.has(task.id)) throw new Error(`task ${task.id} exists`);
    const slot = idempotencySlot(task);
    const holder = slot ? this.tasks.get(this.idempotent.get(slot) ?? '') : undefined;
    const claimed = holder?.idempotency?.key === task.idempotency?.key;
    if (holder && claimed && holder.created_at >= idempotentSince) throw new IdempotencyKeyTaken(holder);
    this.remember(task);
    await this.persist(task).catch((e: unknown) => {
      this.undo(task, holder);
      throw e;
    });
  }

  get(id: string): Promise<VideoTask | undefined> {
    return Promise.resolve(this.tasks.get(id));
  }

  async acquire(
    id: string,
    lease: Lease,
    now: number,
    options: AcquireOptions = {},
  ): Promise<VideoTask | undefined> {
    const task = this.tasks.get(id);
    if (!task || !needsWork(task) || (leaseLive(task.lease, now) && task.lease?.owner !== lease.owner)) {
      return undefined;
    }
    if (options.onlyIfDue && task.next_poll_at > now) return undefined;
    return this.apply(task, { lease }, now);
  }

  async update(id: string, owner: string, change: TaskChange, now: number): Promise<VideoTask | undefined> {
    const task = this.tasks.get(id);
    if (!task || task.lease?.owner !== owner || !leaseLive(task.lease, now)) return undefined;
    if (change.status && !canMove(task.status, change.status)) return undefined;
    return this.apply(task, change, now);
  }

  async settleSubmit(id: string, change: TaskChange, now: number): Promise<VideoTask | undefined> {
    const task = this.tasks.get(id);
    if (!task || task.upstream_task_id !== null || !needsWork(task)) return undefined;
    if (change.status && !canMove(task.status, change.status)) return undefined;
    return this.apply(task, change, now);
  }

  async freeIdempotencyKey(id: string, key: string, now: number): Promise<VideoTask | undefined> {
    const task = this.tasks.get(id);
    if (!task || needsWork(task) || task.idempotency?.key !== key) return undefined;
    return this.apply(task, { idempotency: null }, now);
  }

  async requestCancel(id: string, now: number): Promise<VideoTask | undefined> {
    const task = this.tasks.get(id);
    if (!task || !needsWork(task)) return undefined;
    const asked = { cancel_requested_at: task.cancel_requested_at ?? now };
    return this.apply(task, { next_poll_at: Math.min(task.next_poll_at, now), ...asked }, now);
  }

  due(now: number, limit: number): Promise<VideoTask[]> {
    const due: VideoTask[] = [];
    for (const id of this.working) {
      const task = this.tasks.get(id)!;
      if (task.next_poll_at <= now && !leaseLive(task.lease, now)) due.push(task);
    }
    due.sort((a, b) => a.next_poll_at - b.next_poll_at);
    return Promise.resolve(due.slice(0, limit));
  }

  /** Every task is read: fine for the ~1e5 tasks one process keeps; a busier gateway runs MongoDB. */
  page(query: TaskPageQuery): Promise<VideoTask[]> {
    const { after, status, key_id, team_id, model, kind } = query;
    const matches: VideoTask[] = [];
    for (const task of this.tasks.values()) {
      if (kind !== ANY_KIND && task.kind !== kind) continue;
      if (status !== undefined && task.status !== status) continue;
      if (key_id !== undefined && task.key_id !== key_id) continue;
      if (team_id !== undefined && task.team_id !== team_id) continue;
      if (model !== undefined && task.model !== model) continue;
      if (after && newestFirst(task, after) <= 0) continue;
      matches.push(task);
    }
    return Promise.resolve(matches.sort(newestFirst).slice(0, query.limit));
  }

  watch(listener: (task: VideoTask) => void): () => void {
    // A listener that throws must not fail the write that was already stored, nor starve other listeners.
    const guarded = (task: VideoTask): void => {
      try {
        listener(task);
      } catch {
        // the listener's own failure; the change is stored either way
      }
    };
    this.events.on('change', guarded);
    return () => this.events.off('change', guarded);
  }

  countByStatus(): Promise<Record<TaskStatus, number>> {
    const counts = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
    for (const task of this.tasks.values()) if (task.kind === undefined) counts[task.status]++;
    return Promise.resolve(counts);
  }

  /** Failing from a failed journal append until one succeeds (there is no retry: the next change is one). */
  health(): StoreHealth {
    return writeHealth(JOURNAL, this.failure);
  }

  async close(): Promise<void> {
    clearInterval(this.purger);
    await this.drain();
    this.events.removeAllListeners();
    await this.handle.close();
  }

  /** Stores the task's latest state, and whether the poller still has work on it. */
  private put(task: VideoTask): void {
    this.tasks.set(task.id, task);
    if (needsWork(task)) this.working.add(task.id);
    else this.working.delete(task.id);
  }

  private remember(task: VideoTask): void {
    this.put(task);
    const slot = idempotencySlot(task);
    if (slot) this.idempotent.set(slot, task.id);
  }

  private async apply(
    task: VideoTask,
    change: TaskChange & Pick<VideoTask, 'cancel_requested_at'>,
    now: number,
  ): Promise<VideoTask> {
    const history = nextHistory(task, change.status, now);
    const next: VideoTask = { ...task, ...change, history, updated_at: now };
    this.put(next);
    const slot = idempotencySlot(task);
    if (slot && !next.idempotency && this.idempotent.get(slot) === task.id) this.idempotent.delete(slot);
    await this.persist(next).catch((e: unknown) => {
      this.undo(next, task);
      throw e;
    });
    return next;
  }

  /**
   * A change whose write failed is taken back from memory (unless a later change already replaced it),
   * so memory never holds what the journal does not: no phantom lease, no task a restart would forget.
   */
  private undo(failed: VideoTask, previous: VideoTask | undefined): void {
    if (this.tasks.get(failed.id) !== failed) return;
    this.tasks.delete(failed.id);
    this.working.delete(failed.id);
    const slot = idempotencySlot(failed);
    if (slot && this.idempotent.get(slot) === failed.id) this.idempotent.delete(slot);
    if (previous) this.remember(previous); // the task as it was, or the one that held the key before
  }

  /** Appends the snapshot and resolves once it is on disk; then tells the watchers. */
  private async persist(task: VideoTask): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.pending.push(JSON.stringify(task));
      this.waiters.push({ resolve, reject });
      if (!this.writing) void this.writeLoop();
    });
    this.events.emit('change', task);
  }

  /** Group commit: whatever queued while the last write ran goes out in the next one. */
  private async writeLoop(): Promise<void> {
    this.writing = true;
    while (this.pending.length > 0) {
      const lines = this.pending;
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      try {
        await this.handle.appendFile((this.torn ? '\n' : '') + lines.join('\n') + '\n');
        this.torn = false;
        await this.handle.datasync();
        this.failure = undefined;
        this.journalLines += lines.length;
        for (const w of waiters) w.resolve();
      } catch (e) {
        this.torn = true;
        this.failure = e;
        for (const w of waiters) w.reject(e);
      }
      if (this.journalLines > COMPACT_MIN_LINES && this.journalLines > COMPACT_RATIO * this.tasks.size) {
        await this.compact().catch(() => undefined); // the journal stays valid; compaction retries later
      }
    }
    this.writing = false;
  }

  /** Rewrites the journal as one snapshot per task (atomically), then appends to the new file. */
  private async compact(): Promise<void> {
    const content = [...this.tasks.values()].map((t) => JSON.stringify(t)).join('\n') + '\n';
    await writeFileAtomic(this.file, content);
    await this.handle.close();
    this.handle = await open(this.file, 'a', 0o600);
    this.journalLines = this.tasks.size;
  }

  private async drain(): Promise<void> {
    while (this.writing || this.pending.length > 0) await new Promise((r) => setImmediate(r));
  }
}

/** The last snapshot of each task in the journal, and how many lines it has. A torn last line is skipped. */
async function readJournal(file: string): Promise<{ tasks: Map<string, VideoTask>; lines: number }> {
  const tasks = new Map<string, VideoTask>();
  let lines = 0;
  await eachLine(file, (line) => {
    lines++;
    try {
      const task = normalizeTask(JSON.parse(line) as StoredTask);
      tasks.set(task.id, task);
    } catch {
      // a line cut by a crash mid-append: the change it held was never acknowledged
    }
  });
  return { tasks, lines };
}
