/**
 * One instance's budgets, in memory: each subject's spend is read once from the usage store when the
 * subject is first checked (and again when a new period begins), then kept up to date from the records
 * as they are written — no query per request. Beside it, the estimated cost of the subject's calls under
 * way (holds).
 *
 * Alone, an instance counts the records it writes itself: instances sharing a budget share it exactly
 * through Redis (redis-budget-ledger.ts), which falls back to this ledger while Redis cannot answer.
 */
import type { KeyBudget } from '../stores/key-store';
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
import { periodStartOf } from './budget-period';
import type { SpendListener } from './spend-change';

/** What a subject spent in the usage store's records from `from` (epoch ms; undefined: ever). */
export type SpentSince = (kind: BudgetKind, id: string, from: number | undefined) => Promise<number>;

/** A video task still under way, and what it holds (for holds a restart must restore). */
export interface OpenTask {
  readonly id: string;
  readonly micros: number;
}

/** The subject's video tasks still under way, read with its spend: their holds outlive a restart. */
export type OpenTasksOf = (kind: BudgetKind, id: string) => Promise<readonly OpenTask[]>;

/** One subject's spend in one period. Holds stay with the subject across a change of period. */
interface SubjectSpend {
  readonly kind: BudgetKind;
  readonly id: string;
  budget: KeyBudget;
  /** Epoch ms of the period's start (0 for `total`). */
  periodStart: number;
  /** Cost of the subject's records in the period, in micro-units. */
  spent: number;
  /** Estimated cost of the subject's calls admitted and not yet finished, in micro-units. */
  held: number;
  /** Set while the spend is being read from the store. */
  seeding: Promise<void> | undefined;
}

/** A hold on each of its subjects' spends. */
interface Held {
  readonly spend: SubjectSpend;
  readonly micros: number;
}

const nameOf = (kind: BudgetKind, id: string): string => `${kind}:${id}`;

export class MemoryBudgetLedger implements BudgetLedger {
  private readonly spends = new Map<string, SubjectSpend>();
  /** Holds of calls under way, by hold id. */
  private readonly calls = new Map<string, readonly Held[]>();
  /** Holds of video tasks under way, by task id: they outlive the submit call, until the task ends. */
  private readonly tasks = new Map<string, Held[]>();
  /** Tasks that ended while some spend was being read: a read that lists one must not hold it. */
  private readonly endedWhileSeeding = new Set<string>();
  private seedings = 0;
  private holds = 0;
  private readonly listeners: SpendListener[] = [];

  constructor(
    private readonly spentSince: SpentSince,
    private readonly clock: () => number = Date.now,
    private readonly openTasks?: OpenTasksOf,
  ) {}

  async admit(
    subjects: readonly BudgetSubject[],
    micros: number,
    fit: Fit = 'open',
  ): Promise<BudgetAdmission> {
    const spends: SubjectSpend[] = [];
    for (const subject of subjects) spends.push(await this.current(subject));
    // From here to the hold nothing awaits: concurrent calls are admitted one at a time.
    const asked = fit === 'whole' ? micros : 0;
    const full = spends.findIndex(
      (s) => s.spent + s.held >= s.budget.amount_micros || s.spent + s.held + asked > s.budget.amount_micros,
    );
    if (full >= 0) return { admitted: false, subject: subjects[full]! };
    if (micros <= 0) return { admitted: true, hold: undefined };
    const hold: BudgetHold = { id: `m${++this.holds}`, subjects, micros };
    this.calls.set(
      hold.id,
      spends.map((spend) => this.hold(spend, micros)),
    );
    return { admitted: true, hold };
  }

  release(hold: BudgetHold): Settled {
    const held = this.calls.get(hold.id);
    if (!held) return SETTLED;
    this.calls.delete(hold.id);
    for (const h of held) this.unhold(h);
    return SETTLED;
  }

  holdTask(taskId: string, hold: BudgetHold): Settled {
    const held = this.calls.get(hold.id);
    if (!held) return SETTLED;
    this.calls.delete(hold.id);
    this.tasks.set(taskId, [...held]);
    return SETTLED;
  }

  shrinkTask(taskId: string, micros: number): Settled {
    const held = this.tasks.get(taskId);
    if (!held) return SETTLED;
    this.tasks.set(
      taskId,
      held.map((h) => {
        if (h.micros <= micros) return h;
        this.unhold({ spend: h.spend, micros: h.micros - micros });
        return { spend: h.spend, micros };
      }),
    );
    return SETTLED;
  }

  taskEnded(taskId: string): Settled {
    const held = this.tasks.get(taskId);
    if (!held) {
      if (this.seedings > 0) this.endedWhileSeeding.add(taskId);
      return SETTLED;
    }
    this.tasks.delete(taskId);
    for (const h of held) this.unhold(h);
    return SETTLED;
  }

  /**
   * Records of a subject being read from the store meanwhile are counted too: the read may count them as
   * well, which errs towards refusing early, never towards overspending.
   */
  recorded(record: RecordedCost): Settled {
    const cost = record.cost_micros;
    if (cost === null || cost <= 0) return SETTLED;
    if (record.key_id !== null) this.count(this.spends.get(nameOf('key', record.key_id)), record, cost);
    if (record.team_id !== undefined)
      this.count(this.spends.get(nameOf('team', record.team_id)), record, cost);
    return SETTLED;
  }

  onSpend(listener: SpendListener): void {
    this.listeners.push(listener);
  }

  /** The subject's spend as of now, read from the store on first use and when a new period begins. */
  private async current(subject: BudgetSubject): Promise<SubjectSpend> {
    const { kind, id, budget } = subject;
    const start = periodStartOf(budget.period, this.clock());
    const name = nameOf(kind, id);
    let spend = this.spends.get(name);
    if (!spend) {
      spend = { kind, id, budget, periodStart: start, spent: 0, held: 0, seeding: undefined };
      this.spends.set(name, spend);
      this.seed(name, spend);
    } else if (spend.budget.period !== budget.period || spend.periodStart !== start) {
      spend.periodStart = start;
      spend.spent = 0;
      this.seed(name, spend);
    }
    spend.budget = budget;
    // Concurrent first calls all wait for the one read; after it they check and hold one at a time.
    while (spend.seeding) await spend.seeding;
    return spend;
  }

  private count(spend: SubjectSpend | undefined, record: RecordedCost, cost: number): void {
    if (!spend) return; // not budgeted (yet): read from the store when it is first checked
    if (spend.periodStart > 0 && Date.parse(record.created_at) < spend.periodStart) return;
    const before = spend.spent;
    spend.spent += cost;
    const change = {
      subject: { kind: spend.kind, id: spend.id },
      budget: spend.budget,
      periodStart: spend.periodStart,
      before,
      after: spend.spent,
    };
    for (const listener of this.listeners) listener(change);
  }

  private hold(spend: SubjectSpend, micros: number): Held {
    spend.held += micros;
    return { spend, micros };
  }

  private unhold({ spend, micros }: Held): void {
    spend.held = Math.max(0, spend.held - micros);
  }

  private seed(name: string, spend: SubjectSpend): void {
    const from = spend.periodStart;
    this.seedings++;
    const seeding = Promise.all([
      this.spentSince(spend.kind, spend.id, from > 0 ? from : undefined),
      this.openTasks?.(spend.kind, spend.id) ?? [],
    ])
      .then(([spent, open]) => {
        if (spend.periodStart !== from) return; // a newer period began meanwhile: its own read counts
        spend.spent += spent;
        for (const task of open) this.restoreTask(task, spend);
      })
      .catch((e: unknown) => {
        // Forgotten, so the next call reads again; this one fails.
        if (this.spends.get(name) === spend && spend.periodStart === from) this.spends.delete(name);
        throw e;
      })
      .finally(() => {
        if (spend.seeding === seeding) spend.seeding = undefined;
        if (--this.seedings === 0) this.endedWhileSeeding.clear();
      });
    spend.seeding = seeding;
  }

  /** A task left running by an earlier process holds its estimate again, once per subject. */
  private restoreTask(task: OpenTask, spend: SubjectSpend): void {
    if (this.endedWhileSeeding.has(task.id)) return;
    const held = this.tasks.get(task.id) ?? [];
    if (held.some((h) => h.spend === spend)) return;
    held.push(this.hold(spend, task.micros));
    this.tasks.set(task.id, held);
  }
}
