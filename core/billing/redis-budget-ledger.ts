/**
 * Budgets shared by every instance on one Redis: each admission is one script that checks and holds
 * against the key's and the team's budget together (budget-scripts.ts), so instances together cannot
 * spend past a budget by more than one call's cost each, as one instance alone. A period's spend is read
 * from the usage store once, by whichever instance first needs it, then counted on Redis as records are
 * written.
 *
 * While Redis cannot answer, admissions fall back to this instance's own counts (MemoryBudgetLedger, fed
 * every record meanwhile), and records Redis missed are counted there once it answers again (a record
 * whose script timed out may then count twice: budgets err towards refusing early).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { LeaseRenewer } from '../../lib/lease-renewer';
import type { RedisLink } from '../redis/redis-link';
import { RedisScript } from '../redis/redis-script';
import {
  SETTLED,
  type BudgetAdmission,
  type BudgetHold,
  type BudgetKind,
  type BudgetLedger,
  type BudgetSubject,
  type Fit,
  type RecordedCost,
  type Settled,
} from './budget-ledger';
import { monthStart, nextMonthStart, periodStartOf } from './budget-period';
import {
  ADMIT,
  BEGIN_SEED,
  END_TASK,
  FINISH_SEED,
  HOLD_TASK,
  RECORD,
  RELEASE,
  RENEW,
  SHRINK_TASK,
} from './budget-scripts';
import type { MemoryBudgetLedger, SpentSince } from './memory-budget-ledger';
import type { SpendListener } from './spend-change';

const admitScript = new RedisScript(ADMIT);
const beginSeedScript = new RedisScript(BEGIN_SEED);
const finishSeedScript = new RedisScript(FINISH_SEED);
const recordScript = new RedisScript(RECORD);
const renewScript = new RedisScript(RENEW);
const releaseScript = new RedisScript(RELEASE);
const holdTaskScript = new RedisScript(HOLD_TASK);
const shrinkTaskScript = new RedisScript(SHRINK_TASK);
const endTaskScript = new RedisScript(END_TASK);

export interface RedisLedgerTiming {
  /** A call's hold lapses this long after its last renewal (renewed every third of it while it runs). */
  readonly leaseMs: number;
  /** A read of a period's spend begun this long ago and never finished is begun again by another. */
  readonly seedAbandonedMs: number;
  /** How often records Redis missed are tried again. */
  readonly retryMs: number;
}

export const REDIS_LEDGER_TIMING: RedisLedgerTiming = {
  leaseMs: 60_000,
  seedAbandonedMs: 60_000,
  retryMs: 1_000,
};

/** A month's counts stay on Redis this long past its end (late records of it still count), then go. */
const MONTH_KEPT_MS = 7 * 86_400_000;
/** A record's token stays this long: a record sent again within it (after a timeout) counts once. */
const TOKEN_KEPT_MS = 600_000;
/** How long an admission waits for another instance reading a period's spend, polling every 25 ms. */
const SEED_WAIT_MS = 5_000;
const SEED_POLL_MS = 25;
/** Records waiting for Redis beyond this many are counted only locally (logged). */
const MAX_WAITING = 100_000;
/** Subjects remembered as budgeted, whose records are counted on Redis whatever the call's budget. */
const MAX_KNOWN = 100_000;

/** A record for Redis, with the token that makes sending it again harmless. */
interface Pending {
  readonly record: RecordedCost;
  readonly token: string;
  /** Settles the `recorded` call once a retry lands (set when its first try failed with Redis up). */
  readonly counted?: () => void;
}

/** The subjects (their Redis names) a task holds against, kept so any instance can lower or end its hold. */
interface TaskIndex {
  readonly s: readonly string[];
}

export class RedisBudgetLedger implements BudgetLedger {
  /** This process's holds on Redis, by hold id: renewed together while their calls run. */
  private readonly shared: LeaseRenewer;
  /** Reads of a period's spend under way on this instance, by the period's name. */
  private readonly seeds = new Map<string, Promise<void>>();
  /** Subjects this instance has seen with a budget. */
  private readonly known = new Set<string>();
  private readonly waiting: Pending[] = [];
  private readonly listeners: SpendListener[] = [];
  private readonly tag = randomBytes(6).toString('base64url');
  private holds = 0;
  private records = 0;
  private retrier: NodeJS.Timeout | undefined;
  private fellBack = false;

  constructor(
    private readonly redis: RedisLink,
    /** This instance's own counts: the answer while Redis cannot give one. */
    private readonly local: MemoryBudgetLedger,
    private readonly spentSince: SpentSince,
    private readonly logger: Logger,
    private readonly timing: RedisLedgerTiming = REDIS_LEDGER_TIMING,
    private readonly clock: () => number = Date.now,
  ) {
    // Renewing pushes each hold's score on; the hold sets never expire themselves (RENEW leaves them).
    this.shared = new LeaseRenewer(timing.leaseMs, ({ keys, args }) =>
      this.redis.up ? renewScript.run(this.redis.client, keys, args) : Promise.resolve(),
    );
  }

  async admit(
    subjects: readonly BudgetSubject[],
    micros: number,
    fit: Fit = 'open',
  ): Promise<BudgetAdmission> {
    for (const s of subjects) this.remember(s.kind, s.id);
    if (this.redis.up) {
      try {
        const admission = await this.admitShared(subjects, micros, fit);
        this.fellBack = false;
        return admission;
      } catch (e) {
        this.fallingBack(e);
      }
    } else this.fallingBack(undefined);
    return this.local.admit(subjects, micros, fit);
  }

  release(hold: BudgetHold): Settled {
    const shared = this.shared.get(hold.id);
    if (!shared) return this.local.release(hold);
    this.shared.release(hold.id);
    const keys = hold.subjects.flatMap((s) => [
      this.subject(s.kind, s.id),
      this.subject(s.kind, s.id) + ':h',
    ]);
    // A release that fails leaves the hold to lapse with its lease.
    return releaseScript.run(this.redis.client, keys, [shared.member, hold.micros]).then(
      () => undefined,
      () => undefined,
    );
  }

  holdTask(taskId: string, hold: BudgetHold): Settled {
    const shared = this.shared.get(hold.id);
    if (!shared) return this.local.holdTask(taskId, hold);
    this.shared.release(hold.id);
    const names = hold.subjects.map((s) => this.subject(s.kind, s.id));
    const index: TaskIndex = { s: names };
    const keys = [this.taskIndex(taskId), ...names.flatMap((n) => [n, `${n}:h`, `${n}:t`])];
    const args = [shared.member, hold.micros, taskId, JSON.stringify(index)];
    return holdTaskScript.run(this.redis.client, keys, args).then(
      () => undefined,
      (e: Error) => {
        this.logger.warn({ err: e.message, task: taskId }, 'budget: a video task hold was not kept on redis');
      },
    );
  }

  shrinkTask(taskId: string, micros: number): Settled {
    void this.local.shrinkTask(taskId, micros);
    return this.shrinkShared(taskId, micros).catch((e: Error) => {
      this.logger.warn({ err: e.message, task: taskId }, 'budget: a task hold was not lowered on redis');
    });
  }

  taskEnded(taskId: string): Settled {
    void this.local.taskEnded(taskId);
    return this.endTask(taskId).catch((e: Error) => {
      this.logger.warn(
        { err: e.message, task: taskId },
        'budget: a video task hold was not released on redis',
      );
    });
  }

  recorded(record: RecordedCost, budgeted?: boolean): Settled {
    void this.local.recorded(record);
    if (record.cost_micros === null || record.cost_micros <= 0) return SETTLED;
    if (budgeted === false && !this.knows(record)) return SETTLED;
    return this.count({ record, token: `${this.tag}.${++this.records}` });
  }

  onSpend(listener: SpendListener): void {
    this.listeners.push(listener);
  }

  /** Stops renewing and retrying; holds still on Redis lapse with their leases. */
  stop(): void {
    this.shared.stop();
    clearInterval(this.retrier);
    this.retrier = undefined;
  }

  private async admitShared(
    subjects: readonly BudgetSubject[],
    micros: number,
    fit: Fit,
  ): Promise<BudgetAdmission> {
    const id = `${this.tag}.${++this.holds}`;
    const member = `${id}:${micros}`;
    const now = this.clock();
    const keys = subjects.flatMap((s) => {
      const name = this.subject(s.kind, s.id);
      return [name, `${name}:h`, this.period(name, periodStartOf(s.budget.period, now))];
    });
    const args: (string | number)[] = [this.timing.leaseMs, id, micros];
    for (const s of subjects) args.push(s.budget.amount_micros, s.budget.period);
    args.push(fit === 'whole' ? 1 : 0);
    for (const deadline = Date.now() + SEED_WAIT_MS; Date.now() < deadline;) {
      const [verdict, index] = (await admitScript.run(this.redis.client, keys, args)) as [number, number?];
      if (verdict === 1) {
        if (micros <= 0) return { admitted: true, hold: undefined };
        this.shared.hold(id, { member, sets: keys.filter((_, i) => i % 3 === 1) });
        return { admitted: true, hold: { id, subjects, micros } };
      }
      const subject = subjects[(index ?? 1) - 1]!;
      if (verdict === 0) return { admitted: false, subject };
      await this.seed(subject, periodStartOf(subject.budget.period, now));
    }
    throw new Error("the budget's spend was not read from the usage store in time");
  }

  /** Reads the subject's spend in the period from the usage store onto Redis, once among instances. */
  private seed(subject: BudgetSubject, start: number): Promise<void> {
    const name = this.period(this.subject(subject.kind, subject.id), start);
    let seeding = this.seeds.get(name);
    if (!seeding) {
      seeding = this.read(subject, start, name).finally(() => this.seeds.delete(name));
      this.seeds.set(name, seeding);
    }
    return seeding;
  }

  /** Reads the spend, or, while another instance reads it, waits a moment for the admission to ask again. */
  private async read(subject: BudgetSubject, start: number, name: string): Promise<void> {
    const client = this.redis.client;
    const begun = await beginSeedScript.run(client, [name], [this.timing.seedAbandonedMs]);
    if (begun === 1) return;
    if (begun === 2) return new Promise((r) => setTimeout(r, SEED_POLL_MS));
    const spent = await this.spentSince(subject.kind, subject.id, start > 0 ? start : undefined);
    const expires = subject.budget.period === 'month' ? nextMonthStart(start) + MONTH_KEPT_MS : 0;
    await finishSeedScript.run(client, [name], [spent, expires]);
  }

  /** Counts the record on Redis, or keeps it to count once Redis answers. */
  private count(pending: Pending): Settled {
    const { record, token } = pending;
    const subjects = ownersOf(record);
    if (subjects.length === 0) return SETTLED;
    const month = monthStart(Date.parse(record.created_at));
    const keys = [this.redis.name(`bg:rec:${token}`)];
    for (const [kind, id] of subjects) {
      const name = this.subject(kind, id);
      keys.push(name, this.period(name, 0), this.period(name, month));
    }
    if (!this.redis.up) return this.wait(pending);
    return recordScript.run(this.redis.client, keys, [record.cost_micros!, TOKEN_KEPT_MS]).then(
      (answer) => {
        this.tell(subjects, month, answer as number[]);
        pending.counted?.();
      },
      () => this.wait(pending),
    );
  }

  /** Spend changes for alerts, from the record script's answer (five numbers per subject counted). */
  private tell(subjects: readonly Owner[], month: number, answer: readonly number[]): void {
    for (let i = 0; i + 4 < answer.length; i += 5) {
      const [index, before, after, amount, monthly] = answer.slice(i, i + 5) as [
        number,
        number,
        number,
        number,
        number,
      ];
      const [kind, id] = subjects[index - 1]!;
      const period = monthly === 1 ? 'month' : 'total';
      const change = {
        subject: { kind, id },
        budget: { amount_micros: amount, period },
        periodStart: monthly === 1 ? month : 0,
        before,
        after,
      } as const;
      for (const listener of this.listeners) listener(change);
    }
  }

  /**
   * Keeps a record Redis missed, to send again. Settled at once while Redis is down (admissions then read
   * this instance's counts, which have it); a record missed while Redis is up settles when a retry lands,
   * or when Redis is found down before that.
   */
  private wait(pending: Pending): Settled {
    if (this.waiting.length >= MAX_WAITING) {
      const cost_micros = pending.record.cost_micros;
      this.logger.error({ cost_micros }, 'budget: redis missed a record; counted locally only');
      pending.counted?.();
      return SETTLED;
    }
    this.retrier ??= setInterval(() => this.retry(), this.timing.retryMs);
    this.retrier.unref();
    if (pending.counted || !this.redis.up) {
      this.waiting.push(pending);
      return SETTLED;
    }
    return new Promise((counted) => this.waiting.push({ ...pending, counted }));
  }

  private retry(): void {
    if (!this.redis.up) {
      // Admissions answer from this instance's counts meanwhile, and those have every record kept here.
      for (const p of this.waiting) p.counted?.();
      return;
    }
    const pending = this.waiting.splice(0);
    clearInterval(this.retrier);
    this.retrier = undefined;
    for (const p of pending) void this.count(p);
  }

  private async shrinkShared(taskId: string, micros: number): Promise<void> {
    if (!this.redis.up) return;
    const indexName = this.taskIndex(taskId);
    const text = await this.redis.client.get(indexName);
    if (text === null) return;
    const index = JSON.parse(text) as TaskIndex;
    const keys = index.s.flatMap((n) => [n, `${n}:t`]);
    await shrinkTaskScript.run(this.redis.client, keys, [taskId, micros]);
  }

  private async endTask(taskId: string): Promise<void> {
    if (!this.redis.up) return;
    const indexName = this.taskIndex(taskId);
    const text = await this.redis.client.get(indexName);
    if (text === null) return;
    const index = JSON.parse(text) as TaskIndex;
    const keys = [indexName, ...index.s.flatMap((n) => [n, `${n}:t`])];
    await endTaskScript.run(this.redis.client, keys, [taskId]);
  }

  private fallingBack(e: unknown): void {
    if (this.fellBack) return;
    this.fellBack = true;
    const err = e instanceof Error ? e.message : 'not connected';
    this.logger.warn({ err }, 'budget: redis cannot answer; budgets count this instance alone meanwhile');
  }

  private remember(kind: BudgetKind, id: string): void {
    if (this.known.size >= MAX_KNOWN) this.known.clear();
    this.known.add(`${kind}:${id}`);
  }

  private knows(record: RecordedCost): boolean {
    return ownersOf(record).some(([kind, id]) => this.known.has(`${kind}:${id}`));
  }

  private subject(kind: BudgetKind, id: string): string {
    return this.redis.name(`bg:${kind}:${id}`);
  }

  private period(subject: string, start: number): string {
    return `${subject}:p:${start}`;
  }

  private taskIndex(taskId: string): string {
    return this.redis.name(`bg:task:${taskId}`);
  }
}

type Owner = readonly [BudgetKind, string];

/** The budget subjects a record counts against: its key, and its team when it has one. */
function ownersOf(record: RecordedCost): Owner[] {
  const owners: Owner[] = [];
  if (record.key_id !== null) owners.push(['key', record.key_id]);
  if (record.team_id !== undefined) owners.push(['team', record.team_id]);
  return owners;
}
