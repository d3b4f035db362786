/**
 * The body of a spend alert, as receivers get it (docs/keys-and-console.md#spend-alerts). Its id is
 * derived from the claim's name, so a receiver can drop a repeat (a retry whose first answer was lost)
 * by id, and two deliveries of one crossing to two receivers share it.
 */
import { createHash } from 'node:crypto';
import type { KeyBudget } from '../stores/key-store';
import type { SpendChange } from '../billing/spend-change';
import { claimName } from './crossings';

export const ALERT_TYPE = 'budget.threshold_crossed';

export interface AlertEvent {
  readonly id: string;
  readonly type: typeof ALERT_TYPE;
  readonly subject: { readonly kind: 'key' | 'team'; readonly id: string };
  readonly threshold_percent: number;
  readonly budget: KeyBudget;
  /** The period's start (ISO 8601, UTC) for a monthly budget; null for a total one. */
  readonly period_start: string | null;
  /** Spend in the period once the record that crossed was counted, in micro-units. */
  readonly spent_micros: number;
  readonly created_at: string;
}

export const eventId = (name: string): string =>
  `evt_${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;

export function alertEvent(change: SpendChange, threshold: number, at: number): AlertEvent {
  const { subject, budget } = change;
  return {
    id: eventId(claimName(change, threshold)),
    type: ALERT_TYPE,
    subject: { kind: subject.kind, id: subject.id },
    threshold_percent: threshold,
    budget: { amount_micros: budget.amount_micros, period: budget.period },
    period_start: budget.period === 'month' ? new Date(change.periodStart).toISOString() : null,
    spent_micros: change.after,
    created_at: new Date(at).toISOString(),
  };
}
