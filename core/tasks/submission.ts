/**
 * Submitting a video task. The task is stored (durably) before the upstream is called, under a short
 * submit lease, so a crash in between leaves a record the poller resolves; the client's answer goes out
 * only after the upstream accepted, with the gateway's own task id. An Idempotency-Key replays the first
 * task for the same body and refuses another body (409), unless that task's submit was interrupted: then
 * the retry fails it (if the poller has not yet) and becomes a new submit.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { AttemptCause } from '../request/request-trace';
import { StateKey } from '../contracts/state-key';
import type { ServedRequest } from '../request/served-request';
import type { PollPolicy, SubmitOutcome } from '../contracts/task-upstream';
import type { RouteTarget } from '../contracts/route';
import { type JsonObject } from '../base/json';
import { Errors } from '../base/errors';
import { replyJson } from '../http/json-reply';
import { nextTarget, retryCause } from '../routing/catalogue';
import type { Resilience } from '../routing/resilience';
import { IdempotencyKeyTaken, type TaskStore } from '../stores/task-store';
import { interruptedChange, interruption, warnInterrupted } from './interrupted-submit';
import type { TaskProtocol } from './protocol';
import { firstPollDelay } from './poll-delay';
import { createdNothing, submitFailed } from './submit-retry';
import {
  handedBack,
  newTaskState,
  isTerminal,
  type Idempotency,
  type TaskChange,
  type VideoTask,
} from '../stores/video-task';

/**
 * Told the id of a new task the moment it is stored, before the upstream is called: the budget stage
 * moves the submit's hold onto the task, to be released when the task ends (SpendTracker.taskEnded).
 */
export const TASK_STORED = new StateKey<(taskId: string) => void>('tasks', 'stored');

export interface SubmissionSettings {
  /** The lease owner of tasks being submitted by this instance. */
  readonly owner: string;
  readonly idempotencyWindowMs: number;
  /** This instance's poller, which then polls the tasks submitted here first; none when it runs none. */
  readonly pollerOwner?: string | undefined;
}

const IDEMPOTENCY_HEADER = 'idempotency-key';
const MAX_IDEMPOTENCY_KEY = 255;
/**
 * Inserts tried per submit: a retry that frees an interrupted task's key tries again, and may then find
 * the key taken by a concurrent retry's new task (which it answers). More tries would only mean a fault.
 */
const MAX_CLAIMS = 3;
/** Tries at recording an accepted submit, and the first pause between them (growing linearly). */
const SETTLE_ATTEMPTS = 4;
const SETTLE_RETRY_MS = 250;
/**
 * Beyond the upstream's connect and response timeouts, how long a submit's lease lasts: the majority
 * insert before the call and the write after it take time too. The lease only keeps the poller from
 * failing the task as interrupted while its submit may still settle it.
 */
const SUBMIT_LEASE_SLACK_MS = 30_000;
/** Held while a retry fails an abandoned submit: two conditional writes. */
const TAKEOVER_LEASE_MS = 5_000;
/**
 * While another party (a poller, another retry) fails such a task, a retry looks every 25 ms whether it
 * is done, for as long as a retry's lease on it lasts: two writes on a loaded store can take a second,
 * and a retry that stopped looking sooner would answer the dead task.
 */
const TAKEOVER_WAIT_MS = 25;
const TAKEOVER_WAITS = TAKEOVER_LEASE_MS / TAKEOVER_WAIT_MS;

function idempotencyOf(ctx: ServedRequest, raw: Buffer): Idempotency | null {
  const key = ctx.req.headers[IDEMPOTENCY_HEADER];
  if (key === undefined) return null;
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY) {
    throw Errors.invalidRequest(`header 'Idempotency-Key' must be 1 to ${MAX_IDEMPOTENCY_KEY} characters`);
  }
  return { key, body_hash: createHash('sha256').update(raw).digest('base64url') };
}

export class TaskSubmission {
  constructor(
    private readonly store: TaskStore,
    private readonly settings: SubmissionSettings,
    private readonly logger: Logger,
    private readonly resilience: Resilience,
  ) {}

  async submit(ctx: ServedRequest, protocol: TaskProtocol, protocolName: string): Promise<void> {
    protocol.checkSubmit(ctx.req.headers);
    const target = ctx.target;
    const tasks = target?.upstream.plugin.tasks;
    // model-router resolved a model of the task API, and the composition root checked its plugin.
    if (!target || !tasks) throw Errors.internal(new Error('a task submit without a task upstream'));
    const body = await ctx.json();
    const raw = await ctx.rawBody();
    const params = tasks.check(body, target.spec);
    const task = this.newTask(ctx, target, tasks.polling, protocol, protocolName, {
      params,
      idempotency: idempotencyOf(ctx, raw),
    });
    const holder = await this.claim(task);
    if (holder) return this.replay(ctx, holder, task, protocol);
    ctx.get(TASK_STORED)?.(task.id);
    let outcome: SubmitOutcome;
    try {
      outcome = await this.submitUpstream(ctx, task, body, raw);
    } catch (e) {
      await this.settle(task, failed('upstream_unreachable', (e as Error).message));
      throw e;
    }
    if (!outcome.accepted) {
      await this.settle(task, failed('upstream_refused', `the upstream answered ${outcome.status}`));
      ctx.status = outcome.status;
      ctx.res.writeHead(outcome.status, {
        ...ctx.replyHeaders,
        'content-type': outcome.contentType,
        'content-length': outcome.body.length,
        'x-request-id': ctx.requestId,
      });
      ctx.res.end(outcome.body);
      return;
    }
    const accepted = await this.recordAccepted(task, {
      upstream_task_id: outcome.upstreamTaskId,
      next_poll_at: Date.now() + firstPollDelay(tasks.polling), // jittered: a burst of submits spreads out
      lease: this.settings.pollerOwner === undefined ? null : handedBack(this.settings.pollerOwner),
    });
    replyJson(ctx, 200, protocol.submitted(accepted ?? task, ctx.requestId));
  }

  /**
   * Submits to the chosen target, and once more to the route's next target when the first created
   * nothing upstream (submit-retry.ts) and the retry budget allows; the task is moved to it first, so
   * it is polled and billed there. Otherwise the first result stands (returned, or thrown).
   */
  private async submitUpstream(
    ctx: ServedRequest,
    task: VideoTask,
    body: JsonObject,
    raw: Buffer,
  ): Promise<SubmitOutcome> {
    const first = ctx.target!;
    const { outcome, error } = await this.attempt(ctx, first, body, raw, FIRST);
    const next = createdNothing(outcome, error) ? nextTarget(first, this.resilience.health) : undefined;
    const nextTasks = next?.upstream.plugin.tasks;
    if (!next || !nextTasks || !this.resilience.budget.tryRetry()) return settled(outcome, error);
    try {
      let params: VideoTask['params'];
      try {
        params = nextTasks.check(body, next.spec);
      } catch {
        return settled(outcome, error); // the fallback's model refuses this body: the first answer stands
      }
      const moved = await this.settle(task, {
        model: next.spec.id,
        upstream: next.upstream.name,
        upstream_model: next.upstreamModel,
        params,
      });
      if (!moved) return settled(outcome, error);
      const reason = outcome ? `status ${outcome.accepted ? 200 : outcome.status}` : 'connect error';
      this.resilience.retried(ctx.requestId, first.upstream.name, next.upstream.name, reason);
      ctx.target = next;
      const second = await this.attempt(ctx, next, body, raw, retryCause(first, next, reason));
      return settled(second.outcome, second.error);
    } finally {
      this.resilience.budget.retryEnded();
    }
  }

  /** One submit, counted for or against its upstream's health, and traced as an attempt. */
  private async attempt(
    ctx: ServedRequest,
    target: RouteTarget,
    body: JsonObject,
    raw: Buffer,
    why: AttemptCause,
  ): Promise<{ outcome?: SubmitOutcome; error?: unknown }> {
    const name = target.upstream.name;
    let result: { outcome?: SubmitOutcome; error?: unknown };
    const span = ctx.trace?.attempt(target, target.spec.api, undefined, why);
    const sentAt = performance.now();
    try {
      result = {
        outcome: await target.upstream.plugin.tasks!.submit(
          body,
          raw,
          target.upstreamModel,
          ctx.requestId,
          span?.traceparent,
        ),
      };
    } catch (error) {
      result = { error };
    }
    ctx.observed.upstreamMs += performance.now() - sentAt;
    const { outcome } = result;
    span?.end(outcome?.accepted === false ? outcome.status : 0, failureOf(outcome, result.error), undefined);
    if (!submitFailed(outcome)) this.resilience.health.success(name);
    else if (outcome && !outcome.accepted) this.resilience.failed(ctx.requestId, name, outcome);
    else this.resilience.failed(ctx.requestId, name, { error: result.error });
    return result;
  }

  private newTask(
    ctx: ServedRequest,
    target: RouteTarget,
    polling: PollPolicy,
    protocol: TaskProtocol,
    protocolName: string,
    { params, idempotency }: Pick<VideoTask, 'params' | 'idempotency'>,
  ): VideoTask {
    const now = Date.now();
    const { timeouts } = target.upstream;
    return {
      id: protocol.newTaskId(),
      key_id: ctx.key?.id ?? null,
      ...(ctx.team ? { team_id: ctx.team.id } : {}),
      model: target.spec.id,
      upstream: target.upstream.name,
      upstream_model: target.upstreamModel,
      protocol: protocolName,
      request_id: ctx.requestId,
      params,
      ...newTaskState(now),
      deadline_at: now + polling.deadlineMs,
      // Held while the upstream is called; if this process dies first, the poller resolves the task after it.
      lease: {
        owner: this.settings.owner,
        until: now + timeouts.connectMs + timeouts.responseMs + SUBMIT_LEASE_SLACK_MS,
      },
      idempotency,
      ...(ctx.trace ? { traceparent: ctx.trace.traceparent } : {}),
    };
  }

  /**
   * Stores the new task, or returns the task that holds its idempotency key. A holder whose submit was
   * interrupted is first failed (or, failed by an older version, made to let go of the key), and the
   * insert tried again: the retry becomes a new submit instead of replaying a task that never ran.
   */
  private async claim(task: VideoTask): Promise<VideoTask | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.insert(task, task.created_at - this.settings.idempotencyWindowMs);
        return undefined;
      } catch (e) {
        if (!(e instanceof IdempotencyKeyTaken)) throw e;
        if (attempt >= MAX_CLAIMS || !(await this.release(e.existing, task.id))) return e.existing;
      }
    }
  }

  /**
   * Frees the key of a holder whose submit was interrupted, or waits while another party does; false
   * when the holder is a task to answer.
   */
  private async release(holder: VideoTask, attemptId: string): Promise<boolean> {
    const now = Date.now();
    switch (interruption(holder, now)) {
      case 'abandoned':
        await this.failAbandoned(holder, attemptId, now);
        return true;
      case 'failing':
        await this.whileTakenOver(holder.id);
        return true;
      case 'failed':
        // No migration exists: a key an older version kept is freed when a retry first needs it.
        if (holder.idempotency) await this.store.freeIdempotencyKey(holder.id, holder.idempotency.key, now);
        return true;
      default:
        return false;
    }
  }

  /**
   * Fails a task whose submit lease ran out (its instance died; the poller has not got to it yet) and
   * frees its key, under a lease of this attempt's own: of two retries, here or on other instances, and
   * the poller, only one can take it. The others wait until the winner has failed it.
   */
  private async failAbandoned(holder: VideoTask, attemptId: string, now: number): Promise<void> {
    const owner = `${this.settings.owner}/${attemptId}`;
    const leased = await this.store.acquire(holder.id, { owner, until: now + TAKEOVER_LEASE_MS }, now);
    if (!leased) return this.whileTakenOver(holder.id);
    if (leased.upstream_task_id !== null) {
      // Settled in the meantime by an instance whose clock runs behind: a live task, given back untouched.
      await this.store.update(holder.id, owner, { lease: null }, Date.now());
      return;
    }
    const failed = await this.store.update(holder.id, owner, interruptedChange(Date.now()), Date.now());
    if (failed) warnInterrupted(this.logger, holder, 'retry');
  }

  /**
   * Waits (up to a retry's lease) while another party fails the task, so the next insert finds the key
   * freed.
   */
  private async whileTakenOver(id: string): Promise<void> {
    for (let i = 0; i < TAKEOVER_WAITS; i++) {
      const task = await this.store.get(id);
      if (!task?.idempotency || isTerminal(task.status) || task.upstream_task_id !== null) return;
      await sleep(TAKEOVER_WAIT_MS);
    }
  }

  /** The same key again: the first task for the same body (and protocol), else 409. */
  private replay(ctx: ServedRequest, existing: VideoTask, attempt: VideoTask, protocol: TaskProtocol): void {
    const same =
      existing.idempotency?.body_hash === attempt.idempotency?.body_hash &&
      existing.protocol === attempt.protocol;
    if (!same) throw Errors.idempotencyConflict(attempt.idempotency?.key ?? '');
    replyJson(ctx, 200, protocol.submitted(existing, ctx.requestId));
  }

  /**
   * Stores the submit's outcome while the task has no upstream id yet, whoever holds its lease now (see
   * TaskStore.settleSubmit): a submit slower than its lease still settles its own task.
   */
  private settle(task: VideoTask, change: TaskChange): Promise<VideoTask | undefined> {
    return this.store.settleSubmit(task.id, change, Date.now());
  }

  /**
   * Records the job the upstream accepted, trying again while the store fails (a step-down, say). If it
   * cannot be recorded (the task was failed as interrupted meanwhile, or the store stays down), the job
   * runs upstream with no task to bill it by: logged as an error with its upstream id, to reconcile.
   */
  private async recordAccepted(task: VideoTask, change: TaskChange): Promise<VideoTask | undefined> {
    let failure: unknown;
    for (let attempt = 1; attempt <= SETTLE_ATTEMPTS; attempt++) {
      try {
        // An attempt that failed may have been written all the same (a write-concern error: the primary
        // applied it, the majority did not answer in time): then the task holds this job already.
        const settled = (await this.settle(task, change)) ?? (await this.recorded(task, change));
        if (settled) return settled;
        failure = 'the task was already failed as interrupted';
        break; // a condition, not an outage: asking again cannot change it
      } catch (e) {
        failure = e;
        if (attempt < SETTLE_ATTEMPTS) await sleep(SETTLE_RETRY_MS * attempt);
      }
    }
    this.logger.error(
      {
        err: failure,
        task: task.id,
        upstream: task.upstream,
        upstream_task_id: change.upstream_task_id,
        key_id: task.key_id,
      },
      'video task accepted upstream but not recorded: the upstream job runs unbilled; reconcile it by its upstream id',
    );
    return undefined;
  }

  /** The task, if it already holds the upstream job `change` records. */
  private async recorded(task: VideoTask, change: TaskChange): Promise<VideoTask | undefined> {
    const stored = await this.store.get(task.id);
    return stored && stored.upstream_task_id === change.upstream_task_id ? stored : undefined;
  }
}

/** The outcome, or the error it threw. */
function settled(outcome: SubmitOutcome | undefined, error: unknown): SubmitOutcome {
  if (outcome) return outcome;
  throw error;
}

const FIRST: AttemptCause = Object.freeze({ kind: 'first' });

/** Why a submit failed, for its span; undefined when the upstream accepted it. */
function failureOf(outcome: SubmitOutcome | undefined, error: unknown): string | undefined {
  if (outcome?.accepted) return undefined;
  if (outcome) return `status ${outcome.status}`;
  return error instanceof Error ? error.message : 'no answer';
}

/** A submit that never became an upstream task: failed, unbilled, and its idempotency key freed for a retry. */
const failed = (code: string, message: string): TaskChange => ({
  status: 'failed',
  error: { code, message },
  finished_at: Date.now(),
  lease: null,
  idempotency: null,
});
