/**
 * Which thresholds a spend change crosses, and the claim that makes each crossing one alert across
 * instances: its name (subject, period, budget amount, threshold) and how long the claim must last.
 */
import { nextMonthStart } from '../billing/budget-period';
import type { SpendChange } from '../billing/spend-change';

/** A total budget's claim: spend only grows within the budget, so a crossing cannot come back meanwhile. */
export const TOTAL_CLAIM_MS = 365 * 24 * 3_600_000;
/** A month's claim outlives the month by this much, for instances whose clocks run slightly apart. */
const MONTH_CLAIM_SLACK_MS = 24 * 3_600_000;

/**
 * The thresholds (ascending percents) with `before < t% of the amount <= after`: every one a single
 * record passes, so a jump from 0 to 120% crosses 50, 80 and 100 at once. Compared in integers (BigInt),
 * so large budgets in micro-units lose no precision.
 */
export function crossedThresholds(change: SpendChange, thresholds: readonly number[]): number[] {
  const figures = [change.budget.amount_micros, change.before, change.after];
  if (!figures.every(Number.isFinite) || change.after <= change.before) return [];
  const amount = BigInt(Math.trunc(change.budget.amount_micros));
  if (amount <= 0n) return [];
  const before = BigInt(Math.trunc(change.before)) * 100n;
  const after = BigInt(Math.trunc(change.after)) * 100n;
  return thresholds.filter((t) => {
    const line = BigInt(t) * amount;
    return before < line && line <= after;
  });
}

/**
 * The claim's name. The amount is part of it: a raised (or lowered) budget is another budget, whose
 * thresholds alert again; a new month is another period. The subject's id is not split on, so its
 * characters need no escaping (the fields after it are all numbers).
 */
export const claimName = (change: SpendChange, threshold: number): string =>
  [
    'alert',
    change.subject.kind,
    change.subject.id,
    change.budget.period,
    change.periodStart,
    change.budget.amount_micros,
    threshold,
  ].join(':');

/** When the claim may be forgotten: past the month's end, or a year on for a total budget. */
export const claimExpiry = (change: SpendChange, now: number): number =>
  change.budget.period === 'month'
    ? nextMonthStart(change.periodStart) + MONTH_CLAIM_SLACK_MS
    : now + TOTAL_CLAIM_MS;
