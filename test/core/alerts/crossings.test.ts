/**
 * The arithmetic under spend alerts, table by table: which thresholds a change crosses (edges included),
 * how long a claim lasts, and the wait before a retry.
 */
import t from 'tap';
import type { SpendChange } from '../../../core/billing/spend-change';
import { claimExpiry, claimName, crossedThresholds, TOTAL_CLAIM_MS } from '../../../core/alerts/crossings';
import { retryAfterMs, retryDelay } from '../../../core/alerts/retry-delay';

const change = (before: number, after: number, amount = 1_000_000): SpendChange => ({
  subject: { kind: 'team', id: 'team:a' },
  budget: { amount_micros: amount, period: 'month' },
  periodStart: Date.UTC(2026, 10, 1),
  before,
  after,
});

t.test('crossed thresholds: before < t% of the amount <= after', (t) => {
  const cases: [string, SpendChange, number[]][] = [
    ['below the first', change(0, 499_999), []],
    ['exactly on a threshold crosses it', change(0, 500_000), [50]],
    ['from exactly on it crosses nothing again', change(500_000, 700_000), []],
    ['one record past three', change(0, 1_200_000), [50, 80, 100]],
    ['overspend thresholds too', change(1_000_000, 2_500_000), [150, 250]],
    ['spend that does not grow', change(600_000, 600_000), []],
    ['a budget of nothing', change(0, 10, 0), []],
    // 9e15 micros is past 2^53 once multiplied by 100: compared exactly all the same.
    ['a budget beyond float precision', change(4_499_999_999_999_999, 4_500_000_000_000_000, 9e15), [50]],
  ];
  for (const [what, c, want] of cases) t.same(crossedThresholds(c, [50, 80, 100, 150, 250]), want, what);
  t.end();
});

t.test("a claim's name carries the subject, period, amount and threshold", (t) => {
  t.equal(claimName(change(0, 1), 80), 'alert:team:team:a:month:1793491200000:1000000:80');
  t.not(claimName(change(0, 1), 80), claimName(change(0, 1, 2_000_000), 80), 'another amount, another claim');
  t.end();
});

t.test('claims last past the month, or a year for a total budget', (t) => {
  const now = Date.UTC(2026, 10, 27);
  t.equal(claimExpiry(change(0, 1), now), Date.UTC(2026, 11, 2), "a day past the month's end");
  const total = { ...change(0, 1), budget: { amount_micros: 1, period: 'total' as const }, periodStart: 0 };
  t.equal(claimExpiry(total, now), now + TOTAL_CLAIM_MS);
  t.end();
});

t.test('retry waits: doubling from first up to max, jittered, Retry-After within max', (t) => {
  const retry = { attempts: 6, first: 1_000, max: 5_000 };
  const cases: [number, number | undefined, number, number][] = [
    // attempt, Retry-After ms, draw, wait
    [1, undefined, 0, 500],
    [1, undefined, 0.999_999, 1_000],
    [2, undefined, 1, 2_000],
    [3, undefined, 1, 4_000],
    [4, undefined, 1, 5_000],
    [4, undefined, 0, 2_500],
    [1, 3_000, 0, 3_000],
    [1, 60_000, 0, 5_000],
  ];
  for (const [attempt, after, draw, want] of cases)
    t.equal(
      retryDelay(retry, attempt, after, () => draw),
      want,
      `attempt ${attempt}, Retry-After ${after}`,
    );
  const now = Date.UTC(2026, 10, 27, 12);
  t.equal(retryAfterMs('7', now), 7_000, 'seconds');
  t.equal(retryAfterMs(new Date(now + 30_000).toUTCString(), now), 30_000, 'an HTTP date');
  t.equal(retryAfterMs('soon', now), undefined, 'unreadable');
  t.equal(retryAfterMs(null, now), undefined, 'absent');
  t.end();
});
