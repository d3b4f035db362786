/**
 * A budgeted key's or team's spend moved: what spend alerts (core/alerts/) watch for threshold crossings.
 * Emitted by the budget ledger whenever a usage record's cost is counted against a subject with a budget.
 */
import type { KeyBudget } from '../stores/key-store';

export interface SpendChange {
  readonly subject: { readonly kind: 'key' | 'team'; readonly id: string };
  readonly budget: KeyBudget;
  /** Epoch ms of the budget period's start (0 for a `total` budget). */
  readonly periodStart: number;
  /** Spend in the period before and after the record, in micro-units. */
  readonly before: number;
  readonly after: number;
}

export type SpendListener = (change: SpendChange) => void;
