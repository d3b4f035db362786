import { PollMeter, type PollStats } from './poll-meter';
import { phaseAt, type SimTask, type TaskOutcome, type TaskPhase } from './timeline';

/** One id the simulator has seen, as `GET /_sim/tasks` returns it. */
export interface TaskView {
  /** The family that issued the task, or that was first asked for an unknown id. */
  readonly family: string;
  readonly id: string;
  /** The phase now; `unknown` for an id the simulator never issued. */
  readonly status: TaskPhase | 'unknown';
  /** GETs of this id so far. */
  readonly polls: number;
  /** The most GETs of this id in flight at once (1 when a poller never overlaps its own polls). */
  readonly max_concurrent_polls: number;
  /** ISO-8601 submit time; for an unknown id, the time of its first poll. */
  readonly created_at: string;
  readonly last_polled_at: string | null;
  /** The shortest time between two consecutive polls of this id, in ms; null before a second poll. */
  readonly min_poll_gap_ms: number | null;
  // The rest describe what was submitted and are absent for unknown ids.
  readonly model?: string;
  readonly resolution?: string;
  readonly duration?: number;
  readonly ratio?: string | null;
  readonly outcome?: TaskOutcome;
  readonly queue_ms?: number;
  readonly task_ms?: number;
  readonly poll_errors?: number;
  readonly unknown_polls?: number;
  readonly poll_latency_ms?: number;
  readonly video_url?: string;
}

/** A poll in progress, as {@link TaskRegistry.beginPoll} hands it to the family. */
export interface Poll {
  /** The task, or undefined when this family never issued the id. */
  readonly task: SimTask | undefined;
  /** This poll's 1-based number among all GETs of the id. */
  readonly number: number;
  /** Marks the poll finished; safe to call more than once. */
  readonly end: () => void;
}

/** An id and its poll bookkeeping; `task` is undefined for ids that were only ever polled. */
interface Entry {
  readonly family: string;
  readonly id: string;
  readonly task: SimTask | undefined;
  readonly firstSeen: number;
  polls: number;
  inFlight: number;
  maxConcurrent: number;
  lastPolledAt: number | null;
  /** The shortest time between two polls of this id begun one after the other. */
  minPollGap: number | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

function submittedFields(task: SimTask): Partial<TaskView> {
  const { plan, video } = task;
  return {
    model: task.model,
    resolution: video.resolution,
    duration: video.duration,
    ratio: video.ratio,
    outcome: plan.outcome,
    queue_ms: plan.queueMs,
    task_ms: plan.taskMs,
    poll_errors: plan.pollErrors,
    unknown_polls: plan.unknownPolls,
    poll_latency_ms: plan.pollLatencyMs,
    video_url: task.videoUrl,
  };
}

function viewOf(e: Entry, now: number): TaskView {
  return {
    family: e.family,
    id: e.id,
    status: e.task ? phaseAt(e.task, now) : 'unknown',
    polls: e.polls,
    max_concurrent_polls: e.maxConcurrent,
    created_at: iso(e.firstSeen),
    last_polled_at: e.lastPolledAt === null ? null : iso(e.lastPolledAt),
    min_poll_gap_ms: e.minPollGap,
    ...(e.task ? submittedFields(e.task) : {}),
  };
}

const newEntry = (family: string, id: string, firstSeen: number, task: SimTask | undefined): Entry => ({
  family,
  id,
  task,
  firstSeen,
  polls: 0,
  inFlight: 0,
  maxConcurrent: 0,
  lastPolledAt: null,
  minPollGap: null,
});

/** How long the vendors answer for a task (docs/upstreams.md#videoa: 24 h); after that it is unknown, as there. */
export const TASK_RETENTION_MS = 24 * 3_600_000;
/** The most ids kept at once, so a long-running simulator (a demo, a soak) stays bounded. */
export const MAX_ENTRIES = 100_000;

/**
 * Every video task of one simulator, by upstream task id, kept for 24 h as the vendors keep them and
 * at most {@link MAX_ENTRIES} (tasks hold no timers: a task's phase is computed from the clock when
 * asked). Ids that were polled but never issued are remembered too, so their polls can be counted.
 */
export class TaskRegistry {
  private readonly entries = new Map<string, Entry>();
  private meters = new Map<string, PollMeter>();

  constructor(
    private readonly retentionMs = TASK_RETENTION_MS,
    private readonly maxEntries = MAX_ENTRIES,
    /** Epoch ms now: what a task's phase and every poll are timed by (tests move a fake clock). */
    readonly now: () => number = Date.now,
  ) {}

  /** Records a new task. */
  submit(task: SimTask): SimTask {
    this.forgetOld(task.submittedAt);
    this.entries.set(task.id, newEntry(task.family, task.id, task.submittedAt, task));
    this.meter(task.family).submit();
    return task;
  }

  /** Counts a GET of `id` by `family`'s poll route; call `end` on the result when it is answered. */
  beginPoll(family: string, id: string, now = this.now()): Poll {
    let entry = this.entries.get(id);
    if (!entry) this.entries.set(id, (entry = newEntry(family, id, now, undefined)));
    const e = entry;
    e.polls++;
    e.inFlight++;
    e.maxConcurrent = Math.max(e.maxConcurrent, e.inFlight);
    if (e.lastPolledAt !== null) e.minPollGap = Math.min(e.minPollGap ?? Infinity, now - e.lastPolledAt);
    e.lastPolledAt = now;
    const meter = this.meter(family);
    meter.begin(now);
    let open = true;
    const end = (): void => {
      if (!open) return;
      open = false;
      e.inFlight--;
      meter.end();
    };
    return { task: e.task?.family === family ? e.task : undefined, number: e.polls, end };
  }

  /** Whether `id` was issued or polled (a new task must not take it over). */
  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** One id as `/_sim/tasks/<id>` shows it, or undefined when it was never issued nor polled. */
  get(id: string): TaskView | undefined {
    const e = this.entries.get(id);
    return e && viewOf(e, this.now());
  }

  /** Every id seen, oldest first; only `family`'s when given. */
  list(family?: string | null): TaskView[] {
    const now = this.now();
    const out: TaskView[] = [];
    for (const e of this.entries.values())
      if (family == null || e.family === family) out.push(viewOf(e, now));
    return out;
  }

  /** The task with `id` if it exists and has finished successfully (its video can be served). */
  succeeded(id: string): SimTask | undefined {
    const task = this.entries.get(id)?.task;
    return task && phaseAt(task, this.now()) === 'succeeded' ? task : undefined;
  }

  /** One family's counters; zeros for a family that has seen no traffic. */
  statsOf(family: string): PollStats {
    return (this.meters.get(family) ?? new PollMeter()).view();
  }

  /** The counters of every family that has seen traffic, by family name. */
  stats(): Record<string, PollStats> {
    return Object.fromEntries([...this.meters].map(([family, meter]) => [family, meter.view()]));
  }

  /** Starts the families' counters and high-water marks afresh; tasks and their poll counts stay. */
  resetStats(): void {
    // Polls still in flight end on the old meters, so the new ones never go negative.
    this.meters = new Map();
  }

  /** Forgets every task, unknown id and counter; returns how many ids there were. */
  clear(): number {
    const n = this.entries.size;
    this.entries.clear();
    this.resetStats();
    return n;
  }

  /** Drops the oldest ids while they are past retention or too many (a Map keeps insertion order). */
  private forgetOld(now: number): void {
    for (const [id, e] of this.entries) {
      if (this.entries.size < this.maxEntries && e.firstSeen > now - this.retentionMs) return;
      this.entries.delete(id);
    }
  }

  private meter(family: string): PollMeter {
    let meter = this.meters.get(family);
    if (!meter) this.meters.set(family, (meter = new PollMeter()));
    return meter;
  }
}
