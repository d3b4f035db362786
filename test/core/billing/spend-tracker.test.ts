/** SpendTracker: one store read per key and period, records counted as written, a new month from its own records. */
import t from 'tap';
import { SpendTracker, type OpenTask } from '../../../core/billing/spend-tracker';
import type { UsageSummaryQuery, UsageSummaryRow } from '../../../core/stores/usage-store';

const row = (key_id: string, cost_micros: number): UsageSummaryRow => ({
  key_id,
  requests: 1,
  input_tokens: 0,
  output_tokens: 0,
  cost_micros,
  cost_unknown_requests: 0,
});

t.test('seeded once, counts records, starts a new month from the store', async (t) => {
  let now = Date.UTC(2026, 10, 30, 23, 59);
  const queries: UsageSummaryQuery[] = [];
  let rows = [row('k1', 500), row('k2', 7)];
  const tracker = new SpendTracker({ summary: (q) => (queries.push(q), Promise.resolve(rows)) }, () => now);

  const [a, b] = await Promise.all([tracker.current('k1', 'month'), tracker.current('k1', 'month')]);
  t.equal(a, b, 'concurrent first calls share one read');
  t.equal(queries.length, 1, 'one summary query');
  t.strictSame(
    queries[0],
    { group_by: ['key'], key_ids: ['k1'], from: Date.UTC(2026, 10, 1) },
    "the key's records from the month start",
  );
  t.equal(a.spent, 500);

  tracker.recorded({ key_id: 'k1', cost_micros: 40, created_at: new Date(now).toISOString() });
  tracker.recorded({ key_id: 'k1', cost_micros: null, created_at: new Date(now).toISOString() });
  tracker.recorded({ key_id: 'k9', cost_micros: 40, created_at: new Date(now).toISOString() });
  t.equal((await tracker.current('k1', 'month')).spent, 540, 'a priced record counts; unpriced ones do not');
  t.equal(queries.length, 1, 'no query per call');

  tracker.hold(a, 100);
  now = Date.UTC(2026, 11, 1, 0, 1);
  rows = [];
  const next = await tracker.current('k1', 'month');
  t.equal(queries.length, 2, 'a new month reads again');
  t.equal(queries[1]!.from, Date.UTC(2026, 11, 1));
  t.equal(next.spent, 0, 'a new month starts from its own records');
  t.equal(next.held, 100, 'calls under way stay held');
  tracker.release(next, 100);
  t.equal(next.held, 0);

  rows = [row('k2', 7)];
  const total = await tracker.current('k2', 'total');
  t.equal(total.spent, 7);
  t.equal(queries[2]!.from, undefined, 'a total budget reads every record');
});

t.test('a failed read fails the call and is tried again', async (t) => {
  let fail = true;
  const tracker = new SpendTracker({
    summary: () => (fail ? Promise.reject(new Error('disk')) : Promise.resolve([row('k', 3)])),
  });
  await t.rejects(tracker.current('k', 'total'), /disk/);
  fail = false;
  t.equal((await tracker.current('k', 'total')).spent, 3);
});

t.test('holds of tasks under way are read with the spend, except a task that ended meanwhile', async (t) => {
  let answer: (tasks: OpenTask[]) => void = () => undefined;
  const tracker = new SpendTracker(
    { summary: () => Promise.resolve([row('k1', 100)]) },
    Date.now,
    () => new Promise((resolve) => (answer = resolve)),
  );
  const reading = tracker.current('k1', 'total');
  await new Promise((r) => setImmediate(r));
  tracker.taskEnded('t-ended'); // its end was told before the read answered
  answer([
    { id: 't-open', micros: 500 },
    { id: 't-ended', micros: 700 },
  ]);
  const spend = await reading;
  t.equal(spend.spent, 100);
  t.equal(spend.held, 500, 'only the task still under way holds');
  tracker.taskEnded('t-open');
  t.equal(spend.held, 0, 'and is released when it ends');
});
