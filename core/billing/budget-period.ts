/** Budget periods: a `month` is a calendar month in UTC; a `total` budget has one period, from 0. */
import type { KeyBudget } from '../stores/key-store';

/** The start of the calendar month (UTC) holding `now`, in epoch ms. */
export function monthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The start of the next calendar month (UTC) after `now`, in epoch ms. */
export function nextMonthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** The start of the period of `period` holding `now` (0 for `total`). */
export const periodStartOf = (period: KeyBudget['period'], now: number): number =>
  period === 'month' ? monthStart(now) : 0;
