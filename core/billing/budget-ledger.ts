/**
 * Budgets as the request path and the biller see them: a call is admitted only while every budget it
 * falls under (its key's, its team's) has room, and holds its estimated cost against each while it runs;
 * each usage record's cost then counts against the budgets of its key and team. Two ledgers implement it:
 * memory-budget-ledger.ts (one instance's counts) and redis-budget-ledger.ts (exact across instances).
 */
import type { KeyBudget } from '../stores/key-store';
import type { UsageRecord } from '../stores/usage-store';
import { token } from '../base/token';
import { Errors, type GatewayError } from '../base/errors';
import { nextMonthStart } from './budget-period';
import type { SpendListener } from './spend-change';

export type BudgetKind = 'key' | 'team';

/** A budget a call must fit in, with whose it is. */
export interface BudgetSubject {
  readonly kind: BudgetKind;
  readonly id: string;
  readonly budget: KeyBudget;
}

/** The budgets a call by `key` falls under, the key's first: the key's own refusal is the one named. */
export function budgetSubjectsOf(
  key: { readonly id: string; readonly budget?: KeyBudget | undefined } | undefined,
  team: { readonly id: string; readonly budget?: KeyBudget | undefined } | undefined,
): BudgetSubject[] {
  const subjects: BudgetSubject[] = [];
  if (key?.budget) subjects.push({ kind: 'key', id: key.id, budget: key.budget });
  if (team?.budget) subjects.push({ kind: 'team', id: team.id, budget: team.budget });
  return subjects;
}

/** What a total budget's Retry-After says: it does not reset, so look again in a day. */
const TOTAL_RETRY_AFTER_S = 86_400;

/** 429 `budget_exhausted` for a spent budget, naming whose it is; a monthly one says when it resets. */
export function budgetRefusal({ kind, budget }: BudgetSubject, now = Date.now()): GatewayError {
  if (budget.period === 'month') {
    const reset = nextMonthStart(now);
    const wait = Math.max(1, Math.ceil((reset - now) / 1000));
    return Errors.budgetExhausted(kind, 'month', new Date(reset).toISOString(), wait);
  }
  return Errors.budgetExhausted(kind, 'total', undefined, TOTAL_RETRY_AFTER_S);
}

/** What an admitted call holds against each of its subjects until it ends (or its video task does). */
export interface BudgetHold {
  readonly id: string;
  readonly subjects: readonly BudgetSubject[];
  readonly micros: number;
}

/**
 * What an admission asks of a budget's room: `open`, that some is left (a call's cost is known only
 * after it, and the budget may end a call's worth over); `whole`, that the whole estimate fits (a batch,
 * whose estimate is many calls' worth, is refused up front when it would overrun).
 */
export type Fit = 'open' | 'whole';

export type BudgetAdmission =
  | { readonly admitted: true; readonly hold: BudgetHold | undefined }
  /** `subject`: the first budget found spent (the key's is checked before the team's). */
  | { readonly admitted: false; readonly subject: BudgetSubject };

/**
 * Resolves once a change is in the counts the next admission reads (on a shared ledger: applied there,
 * or, while it cannot take it, counted locally and kept to send later). Never rejects: the request path
 * does not wait for it, and a caller that must know the change is in (a test, an operator's tool) can.
 */
export type Settled = Promise<void>;
/** A change made in this process's memory: in the counts as soon as the call returns. */
export const SETTLED: Settled = Promise.resolve();

/** What a usage record tells the ledger. */
export type RecordedCost = Pick<UsageRecord, 'key_id' | 'team_id' | 'cost_micros' | 'created_at'>;

export interface BudgetLedger {
  /**
   * Admits a call when every subject's spend in its period plus what is held for its calls under way is
   * below its amount, and then holds `micros` against each, in one step: calls admitted together cannot
   * spend more than the budget plus one call's cost. A hold of 0 is no hold.
   */
  admit(subjects: readonly BudgetSubject[], micros: number, fit?: Fit): Promise<BudgetAdmission>;
  /** The call ended: its hold goes (its real cost arrives through `recorded`). */
  release(hold: BudgetHold): Settled;
  /** A video submit's hold passes to its task, until the task ends (`taskEnded`, on any instance). */
  holdTask(taskId: string, hold: BudgetHold): Settled;
  /**
   * A task's hold falls to `micros` (it never rises): what its work not yet done may still cost, as a
   * batch's lines run. A task without a hold is a no-op.
   */
  shrinkTask(taskId: string, micros: number): Settled;
  /** The task needs no more work: billed, failed or cancelled. A task without a hold is a no-op. */
  taskEnded(taskId: string): Settled;
  /**
   * A usage record was written: its cost counts against its key's and its team's current period.
   * `budgeted`: whether the call fell under a budget (false spares a shared ledger a round trip for a
   * subject it has never seen budgeted); the video biller does not know, and leaves it out.
   */
  recorded(record: RecordedCost, budgeted?: boolean): Settled;
  /** Told of each record counted against a budget, with the spend before and after it (alerts). */
  onSpend(listener: SpendListener): void;
}

/** The budgets a call falls under: usage-metering and the video biller report each record to it. */
export const BudgetLedgerToken = token<BudgetLedger>('BudgetLedger');
