/**
 * The video poller: it owns every task from submit to a terminal state, and bills each success once,
 * whether or not a client ever asks. It hears of tasks from the store's change events and from a periodic
 * sweep of due tasks (so a missed event or a restart loses nothing), takes a lease before each poll (so
 * pollers on several instances never poll one task at once), and asks each upstream no harder than its
 * poll policy allows (concurrency and rate: per instance, or shared by all through Redis; see PollGate).
 *
 * Every poller hears of every task, so a task is queued on each; the lease is taken only if the task is
 * still due, so the first poller to get there polls it and the others drop their stale turn: N pollers
 * make as many polls per task as one. So that N pollers do not each try every task, a poller hands the
 * task back naming itself (`handedBack`), and the others give it `takeoverMs` before trying: the task
 * stays with one live poller, and a poller that died or fell behind is taken over after that grace.
 */
import { createHash } from 'node:crypto';
import Bottleneck from 'bottleneck';
import type { Logger } from 'pino';
import type { PollOutcome, PollPolicy, TaskUpstream } from '../contracts/task-upstream';
import type { TaskWorker } from '../contracts/task-worker';
import type { AcquireOptions, TaskStore } from '../stores/task-store';
import type { Biller } from './billing';
import { interruptedChange, warnInterrupted } from './interrupted-submit';
import { errorDelay, nextPollDelay } from './poll-delay';
import { localPollGates, type PollGate, type PollGates } from './poll-gate';
import type { TaskSpans } from '../observability/tracing/task-spans';
import {
  canMove,
  handedBack,
  needsWork,
  type TaskChange,
  type TaskError,
  type TaskStatus,
  type VideoTask,
} from '../stores/video-task';

export interface PollerOptions {
  /** This poller's name in leases; unique per poller. */
  readonly owner: string;
  readonly leaseMs: number;
  readonly sweepEveryMs: number;
  /** How long after a task is due this poller waits when another poller polled it last. */
  readonly takeoverMs: number;
}

/** Told of each poll and how late it started, for the metrics (GatewayMetrics implements it). */
export interface PollObserver {
  polled(upstream: string, ok: boolean): void;
  pollLagged(ms: number): void;
}

/** What a step left: the task as it is now, and the earliest time to look at it again. */
interface StepResult {
  readonly latest: VideoTask | undefined;
  readonly notBefore: number;
}

/** What operators read about the poller (admin API `GET /admin/video/stats`). */
export interface PollerStats {
  readonly tasks: Record<TaskStatus, number>;
  readonly polls: number;
  readonly billed: number;
  /** Transient poll failures (transport, 5xx, 429) by upstream. */
  readonly upstream_errors: Record<string, number>;
  /** How late polls started after they were due, in ms. */
  readonly poll_lag_ms: { readonly last: number; readonly max: number };
  /** Polls waiting for their upstream's concurrency or rate cap, and polls under way. */
  readonly queued: number;
  readonly running: number;
}

const deadlineError = (task: VideoTask): TaskError => ({
  code: 'deadline_exceeded',
  message: `the upstream did not finish the task within ${Math.round((task.deadline_at - task.created_at) / 1000)} s`,
});

const SWEEP_BATCH = 10_000;

/** A stable share in [0, 1) for a text. */
const hashShare = (text: string): number =>
  createHash('sha1').update(text).digest().readUInt32BE(0) / 2 ** 32;

/**
 * A dropped turn is retried no sooner than this: when clocks disagree (a store that times leases on its
 * own clock), a task may look due here and not to the store for a moment, and must not spin.
 */
const DROPPED_RETRY_MS = 100;

/** The longest delay a Node timer takes (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class TaskPoller {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Tasks queued for or in a step here; events about them wait for the step's own outcome. */
  private readonly busy = new Set<string>();
  /** Per upstream: how many steps run at once (each holds a lease), and then the gate of its polls. */
  private readonly limiters = new Map<string, Bottleneck>();
  private readonly gates = new Map<string, PollGate>();
  /** Each upstream's caps as last configured, to tell a reload that changed them. */
  private readonly caps = new Map<string, string>();
  /** Lease renewals of polls under way (whileLeased); a halted poller renews nothing. */
  private readonly renewals = new Set<NodeJS.Timeout>();
  /** Gates replaced by a reload, closed when the poller stops. */
  private readonly retiredGates: PollGate[] = [];
  /** Polls leased and waiting at their gate. */
  private waiting = 0;
  private stopWatching: (() => void) | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private stopped = false;
  private polls = 0;
  private billed = 0;
  private readonly errors: Record<string, number> = {};
  private lag = { last: 0, max: 0 };
  /** The workers of tasks that are not video, by kind (TaskWorker). */
  private workers: ReadonlyMap<string, TaskWorker> = new Map();

  constructor(
    private readonly store: TaskStore,
    private upstreams: ReadonlyMap<string, TaskUpstream>,
    private readonly biller: Biller,
    private readonly options: PollerOptions,
    private readonly logger: Logger,
    private readonly makeGate: PollGates = localPollGates,
    private readonly observer?: PollObserver,
    /** Absent when tracing is off. */
    private readonly spans?: TaskSpans,
  ) {
    this.useUpstreams(upstreams);
  }

  /**
   * The task upstreams of a new configuration. An upstream's caps apply from its next poll; polls already
   * waiting at an old gate pass it. A task whose upstream is gone waits (backing off) until it returns
   * or its deadline passes, as after a restart without it.
   */
  useUpstreams(upstreams: ReadonlyMap<string, TaskUpstream>): void {
    this.upstreams = upstreams;
    for (const [name, { polling }] of upstreams) {
      const caps = JSON.stringify(polling);
      if (this.caps.get(name) === caps) continue;
      this.caps.set(name, caps);
      const limiter = this.limiters.get(name);
      if (limiter) void limiter.updateSettings({ maxConcurrent: polling.concurrency });
      else this.limiters.set(name, new Bottleneck({ maxConcurrent: polling.concurrency }));
      const old = this.gates.get(name);
      if (old) this.retiredGates.push(old);
      this.gates.set(name, this.makeGate(name, polling));
    }
  }

  /**
   * The task workers of a new configuration, by kind. A task whose kind has no worker waits (backing
   * off) until one is configured again, as a video task waits for its upstream.
   */
  useWorkers(workers: readonly TaskWorker[]): void {
    this.workers = new Map(workers.map((w) => [w.kind, w]));
    for (const { kind, concurrency } of workers) {
      const lane = laneOf({ kind, upstream: '' });
      const limiter = this.limiters.get(lane);
      if (limiter) void limiter.updateSettings({ maxConcurrent: concurrency });
      else this.limiters.set(lane, new Bottleneck({ maxConcurrent: concurrency }));
    }
  }

  start(): void {
    this.stopWatching = this.store.watch((task) => this.schedule(task));
    // The server keeps the process alive; the poller's timers alone should not.
    this.sweeper = setInterval(() => void this.sweep(), this.options.sweepEveryMs).unref();
    void this.sweep();
  }

  /** Stops taking work and waits for polls under way; their tasks are left consistent (leases released). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.halt();
    await Promise.all([
      ...[...this.limiters.values()].map((l) => l.stop({ dropWaitingJobs: true })),
      ...[...this.gates.values(), ...this.retiredGates].map((g) => g.close()),
    ]);
  }

  /** Stops at once, releasing nothing: what a killed process leaves behind (for tests of lease expiry). */
  abandon(): void {
    if (this.stopped) return;
    this.halt();
    for (const l of this.limiters.values()) void l.stop({ dropWaitingJobs: true }).catch(() => undefined);
    for (const g of [...this.gates.values(), ...this.retiredGates]) void g.close().catch(() => undefined);
  }

  async stats(): Promise<PollerStats> {
    const counts = [...this.limiters.values()].map((l) => l.counts());
    return {
      tasks: await this.store.countByStatus(),
      polls: this.polls,
      billed: this.billed,
      upstream_errors: { ...this.errors },
      poll_lag_ms: { ...this.lag },
      queued: counts.reduce((n, c) => n + c.QUEUED + c.RECEIVED, 0) + this.waiting,
      running: counts.reduce((n, c) => n + c.RUNNING + c.EXECUTING, 0) - this.waiting,
    };
  }

  private halt(): void {
    this.stopped = true;
    this.stopWatching?.();
    clearInterval(this.sweeper);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const timer of this.renewals) clearInterval(timer);
  }

  private async sweep(): Promise<void> {
    try {
      for (const task of await this.store.due(Date.now(), SWEEP_BATCH)) this.schedule(task);
    } catch (e) {
      this.logger.error({ err: e }, 'video poller: sweep failed');
    }
  }

  /** Sets the task's timer for when it is next due (or its lease expires); clears it when no work is left. */
  private schedule(task: VideoTask, notBefore = 0): void {
    if (this.stopped || this.busy.has(task.id)) return;
    clearTimeout(this.timers.get(task.id));
    this.timers.delete(task.id);
    if (!needsWork(task)) return;
    const leasedElsewhere = task.lease && task.lease.owner !== this.options.owner ? task.lease.until : 0;
    const at = Math.max(task.next_poll_at + this.headStartOfOthers(task), leasedElsewhere, notBefore);
    // A millisecond over: a timer may fire up to one early by `Date.now()`, and a turn before the task
    // is due is refused by the store. At most the longest delay a timer takes (Node fires a longer one
    // after 1 ms, which for a lease held far ahead would be a turn refused every few milliseconds).
    const delay = Math.min(Math.max(0, at - Date.now()) + 1, MAX_TIMER_MS);
    const timer = setTimeout(() => this.enqueue(task, at), delay).unref();
    this.timers.set(task.id, timer);
  }

  /**
   * How long this poller leaves a due task to the others: nothing when it polled the task last, the
   * takeover time when another did, and for a task no poller holds yet (never polled, or submitted where
   * no poller runs) a share of it set by a hash of the task and this poller, so each task has a first
   * poller and the tasks spread evenly over the pollers.
   */
  private headStartOfOthers(task: VideoTask): number {
    const { owner, takeoverMs } = this.options;
    if (task.lease === null) return Math.floor(takeoverMs * hashShare(`${owner}\u0000${task.id}`));
    return task.lease.owner === owner ? 0 : takeoverMs;
  }

  /** Waits for the upstream's cap, then works on the task; afterwards schedules what the work left. */
  private enqueue(task: VideoTask, dueAt: number): void {
    this.timers.delete(task.id);
    this.busy.add(task.id);
    const lane = laneOf(task);
    const limiter = this.limiters.get(lane) ?? this.fallbackLimiter(lane);
    limiter
      .schedule(() => this.work(task.id, dueAt))
      .then(
        (result) => this.settled(task.id, result),
        (e: unknown) => {
          if (!this.stopped) this.logger.error({ err: e, task: task.id }, 'video poller: step failed');
          this.settled(task.id, { latest: undefined, notBefore: 0 });
        },
      );
  }

  private settled(id: string, { latest, notBefore }: StepResult): void {
    this.busy.delete(id);
    if (latest) this.schedule(latest, notBefore);
    // Without a result (lease lost, store error), the lease's expiry and the sweep bring the task back.
  }

  /** A task of an upstream no longer configured is still owned: it waits (and fails at its deadline). */
  private fallbackLimiter(name: string): Bottleneck {
    const limiter = new Bottleneck({ maxConcurrent: 1 });
    this.limiters.set(name, limiter);
    return limiter;
  }

  private async work(id: string, dueAt: number): Promise<StepResult> {
    if (this.stopped) return { latest: undefined, notBefore: 0 };
    const now = Date.now();
    const task = await this.lease(id, now);
    if (!task) {
      // Done, leased or polled by another poller meanwhile: this turn is dropped, the task rescheduled.
      return { latest: await this.store.get(id), notBefore: Date.now() + DROPPED_RETRY_MS };
    }
    this.lag = { last: now - dueAt, max: Math.max(this.lag.max, now - dueAt) };
    this.observer?.pollLagged(now - dueAt);
    return { latest: await this.step(task), notBefore: 0 };
  }

  /**
   * Runs a poll while renewing the task's lease every half lease: a poll may take the upstream's connect
   * and response timeouts (65 s by default), longer than the lease (30 s), and another poller must not
   * take the task meanwhile. A poller that dies stops renewing, and its lease runs out as before.
   */
  private async whileLeased<T>(id: string, poll: () => Promise<T>): Promise<T> {
    const renew = (): void => {
      if (this.stopped) return; // a halted poller renews nothing, whenever its poll began
      // Due or not: the poll under way is this turn's. Lost: the change after the poll fails.
      void this.lease(id, Date.now(), {}).catch(() => undefined);
    };
    const timer = setInterval(renew, this.options.leaseMs / 2).unref();
    this.renewals.add(timer);
    try {
      return await poll();
    } finally {
      clearInterval(timer);
      this.renewals.delete(timer);
    }
  }

  /** Takes (or renews) this poller's lease on the task, by default only if it is still due. */
  private lease(
    id: string,
    now: number,
    options: AcquireOptions = { onlyIfDue: true },
  ): Promise<VideoTask | undefined> {
    const lease = { owner: this.options.owner, until: now + this.options.leaseMs };
    return this.store.acquire(id, lease, now, options);
  }

  private async step(task: VideoTask): Promise<VideoTask | undefined> {
    if (task.kind !== undefined) return this.workOn(task, task.kind);
    if (task.status === 'succeeded') return this.bill(task);
    if (task.upstream_task_id === null) return this.failInterrupted(task);
    const now = Date.now();
    if (now >= task.deadline_at) return this.change(task, terminal('failed', deadlineError(task), now), now);
    const upstream = this.upstreams.get(task.upstream);
    if (!upstream) return this.retryLater(task, errorDelay(FALLBACK_POLICY, task.poll_errors + 1));
    const gated = await this.throughGate(task);
    if (!gated) return undefined; // the lease ran out at the gate: the task is someone else's now
    let outcome: PollOutcome;
    const span = this.spans?.poll(task);
    try {
      // The submit's request id goes along, so the upstream's logs of every poll match the gateway's.
      outcome = await this.whileLeased(task.id, () =>
        upstream.poll(task.upstream_task_id!, task.request_id, span?.traceparent),
      ).finally(gated.release);
      span?.end(outcome.state);
    } catch (e) {
      span?.end(undefined, e);
      this.errors[task.upstream] = (this.errors[task.upstream] ?? 0) + 1;
      this.observer?.polled(task.upstream, false);
      this.logger.warn({ err: e, task: task.id, upstream: task.upstream }, 'video poll failed; retrying');
      return this.retryLater(task, errorDelay(upstream.polling, task.poll_errors + 1));
    }
    this.polls++;
    this.observer?.polled(task.upstream, true);
    return this.apply(gated.task, outcome, upstream.polling);
  }

  /** A step of a task of another kind than video, by its worker, under the task's lease. */
  private async workOn(task: VideoTask, kind: string): Promise<VideoTask | undefined> {
    const worker = this.workers.get(kind);
    if (!worker) return this.retryLater(task, errorDelay(FALLBACK_POLICY, task.poll_errors + 1));
    let change: TaskChange;
    try {
      const save = (c: TaskChange) => this.change(task, c);
      change = await this.whileLeased(task.id, () => worker.step(task, { save }));
    } catch (e) {
      this.logger.warn({ err: e, task: task.id, kind }, 'task step failed; retrying');
      return this.retryLater(task, errorDelay(FALLBACK_POLICY, task.poll_errors + 1));
    }
    return this.change(task, { poll_errors: 0, ...change });
  }

  /**
   * Waits at the upstream's gate. A wait that took half the lease renews it, so the poll and the change
   * after it still fall within the lease; undefined (and the gate left) when it could not be renewed.
   */
  private async throughGate(task: VideoTask): Promise<{ task: VideoTask; release: () => void } | undefined> {
    const gate = this.gates.get(task.upstream)!;
    const since = Date.now();
    this.waiting++;
    let release: () => void;
    try {
      release = await gate.take();
    } finally {
      this.waiting--;
    }
    const now = Date.now();
    if (now - since < this.options.leaseMs / 2) return { task, release };
    const renewed = await this.lease(task.id, now).catch(() => undefined);
    if (!renewed) release();
    return renewed && { task: renewed, release };
  }

  private async apply(
    task: VideoTask,
    outcome: PollOutcome,
    policy: PollPolicy,
  ): Promise<VideoTask | undefined> {
    const polled: TaskChange = { polls: task.polls + 1, poll_errors: 0 };
    const now = Date.now();
    switch (outcome.state) {
      case 'succeeded': {
        const succeeded: TaskChange = {
          ...polled,
          ...terminal('succeeded', null, now),
          video_url: outcome.videoUrl,
          usage: outcome.usage,
          lease: task.lease, // kept: billing comes next, under the same lease
        };
        const done = await this.change(task, succeeded, now);
        return done && this.bill(done);
      }
      case 'failed':
      case 'cancelled':
        return this.change(task, { ...polled, ...terminal(outcome.state, outcome.error, now) }, now);
      default: {
        // queued, running or unknown: poll again later; the status never moves backwards.
        const status =
          outcome.state !== 'unknown' && canMove(task.status, outcome.state) ? outcome.state : task.status;
        // Never past the deadline: the task fails then, not up to a whole interval later.
        const next = Math.min(task.deadline_at, Date.now() + nextPollDelay(policy, task.polls + 1));
        return this.change(task, {
          ...polled,
          status,
          next_poll_at: next,
          lease: handedBack(this.options.owner),
        });
      }
    }
  }

  /**
   * A task leased with no upstream id: its submit lease ran out, so its instance died before the
   * upstream's answer was stored. Failed, with its idempotency key freed so a retry submits anew.
   */
  private async failInterrupted(task: VideoTask): Promise<VideoTask | undefined> {
    const failed = await this.change(task, interruptedChange(Date.now()));
    if (failed) warnInterrupted(this.logger, task, 'poller');
    return failed;
  }

  /** Writes the usage record (once, whatever happened before), then marks the task billed, with its cost. */
  private async bill(task: VideoTask): Promise<VideoTask | undefined> {
    let cost: number | null;
    const billed = this.spans?.bill(task);
    try {
      const { record, wrote } = await this.biller.bill(task);
      billed?.(record, wrote);
      if (wrote) this.billed++;
      cost = record.cost_micros;
    } catch (e) {
      billed?.(undefined, false, e);
      this.logger.error({ err: e, task: task.id }, 'video billing failed; retrying');
      return this.retryLater(task, errorDelay(FALLBACK_POLICY, 1));
    }
    return this.change(task, { billed: true, cost_micros: cost, lease: null });
  }

  private retryLater(task: VideoTask, waitMs: number): Promise<VideoTask | undefined> {
    return this.change(task, {
      poll_errors: task.poll_errors + 1,
      next_poll_at: Date.now() + waitMs,
      lease: handedBack(this.options.owner),
    });
  }

  /** A conditional update under this poller's lease; undefined when the lease was lost meanwhile. */
  private change(task: VideoTask, change: TaskChange, now = Date.now()): Promise<VideoTask | undefined> {
    return this.store.update(task.id, this.options.owner, change, now);
  }
}

/** Where a task's steps queue: its upstream's lane for video, its worker's for any other kind. */
const laneOf = (task: Pick<VideoTask, 'kind' | 'upstream'>): string =>
  task.kind === undefined ? task.upstream : `\u0000${task.kind}`;

/** The change that ends a task; `finished_at` is the time the store records in its history too. */
const terminal = (status: TaskStatus, error: TaskError | null, now: number): TaskChange => ({
  status,
  error,
  finished_at: now,
  lease: null,
});

/** Backoff for work that is not a poll (billing retries, tasks of an upstream no longer configured). */
const FALLBACK_POLICY: PollPolicy = {
  everyMs: 1_000,
  maxEveryMs: 60_000,
  deadlineMs: 0,
  concurrency: 1,
  perSecond: 0,
};
