/**
 * MemoryBudgetLedger: one store read per subject and period, records counted as written, a new month from
 * its own records, a call admitted only while its key's and its team's budgets both have room.
 */
import t from 'tap';
import type { BudgetKind, BudgetSubject } from '../../../core/billing/budget-ledger';
import { MemoryBudgetLedger, type OpenTask } from '../../../core/billing/memory-budget-ledger';
import type { SpendChange } from '../../../core/billing/spend-change';

type Read = [BudgetKind, string, number | undefined];
const key = (id: string, amount: number, period: 'total' | 'month' = 'total'): BudgetSubject => ({
  kind: 'key',
  id,
  budget: { amount_micros: amount, period },
});
const team = (id: string, amount: number, period: 'total' | 'month' = 'total'): BudgetSubject => ({
  kind: 'team',
  id,
  budget: { amount_micros: amount, period },
});
const at = (ms: number): string => new Date(ms).toISOString();

t.test('seeded once, counts records, starts a new month from the store', async (t) => {
  let now = Date.UTC(2026, 10, 30, 23, 59);
  const reads: Read[] = [];
  let stored = 500;
  const ledger = new MemoryBudgetLedger(
    (kind, id, from) => (reads.push([kind, id, from]), Promise.resolve(stored)),
    () => now,
  );
  const k1 = key('k1', 1_000, 'month');

  const [a, b] = await Promise.all([ledger.admit([k1], 100), ledger.admit([k1], 100)]);
  t.ok(a.admitted && b.admitted);
  t.strictSame(
    reads,
    [['key', 'k1', Date.UTC(2026, 10, 1)]],
    "one read, of the key's records from the month start",
  );

  ledger.recorded({ key_id: 'k1', cost_micros: 250, created_at: at(now) });
  ledger.recorded({ key_id: 'k1', cost_micros: null, created_at: at(now) });
  // spent 750 + held 200 = 950 < 1000: one more fits, then it is full.
  t.ok((await ledger.admit([k1], 100)).admitted);
  const full = await ledger.admit([k1], 100);
  t.strictSame(full, { admitted: false, subject: k1 }, 'spent 750 + held 300 ≥ 1000');
  t.equal(reads.length, 1, 'no read per call');

  now = Date.UTC(2026, 11, 1, 0, 1);
  stored = 0;
  const next = await ledger.admit([k1], 100);
  t.equal(reads.length, 2, 'a new month reads again');
  t.equal(reads[1]![2], Date.UTC(2026, 11, 1));
  t.ok(next.admitted, 'a new month starts from its own records');
  t.ok((await ledger.admit([k1], 600)).admitted, '0 spent + 400 held < 1000');
  t.notOk((await ledger.admit([k1], 0)).admitted, 'the calls under way stay held into the new month: 1000');
  if (a.admitted && a.hold) ledger.release(a.hold);
  if (b.admitted && b.hold) ledger.release(b.hold);
  t.ok((await ledger.admit([k1], 0)).admitted, 'released holds make room');
});

t.test(
  "a call needs room in its key's and its team's budget; the key's refusal is named first",
  async (t) => {
    const spent: Record<string, number> = { 'key:k1': 0, 'key:k2': 0, 'team:t1': 900 };
    const ledger = new MemoryBudgetLedger((kind, id) => Promise.resolve(spent[`${kind}:${id}`] ?? 0));
    const t1 = team('t1', 1_000);
    const first = await ledger.admit([key('k1', 5_000), t1], 60);
    t.ok(first.admitted, '900 + 0 < 1000');
    t.ok((await ledger.admit([key('k2', 5_000), t1], 60)).admitted, '900 + 60 < 1000');
    const third = await ledger.admit([key('k2', 5_000), t1], 60);
    t.strictSame(
      third,
      { admitted: false, subject: t1 },
      "another key of the team: the team's budget is full",
    );
    const both = await ledger.admit([key('k3', 0), t1], 60);
    t.equal(both.admitted ? '' : both.subject.kind, 'key', 'both full: the key is named');
    if (first.admitted && first.hold) ledger.release(first.hold);
    ledger.recorded({ key_id: 'k1', team_id: 't1', cost_micros: 40, created_at: at(Date.now()) });
    t.notOk(
      (await ledger.admit([key('k2', 5_000), t1], 0)).admitted,
      "a record of one key counts for the team: 940 spent + 60 held by the other key's call",
    );
  },
);

t.test('records counted against a budget are told with the spend before and after', async (t) => {
  const changes: SpendChange[] = [];
  const ledger = new MemoryBudgetLedger(() => Promise.resolve(100));
  ledger.onSpend((change) => changes.push(change));
  await ledger.admit([key('k1', 1_000), team('t1', 5_000, 'month')], 0);
  ledger.recorded({ key_id: 'k1', team_id: 't1', cost_micros: 400, created_at: at(Date.now()) });
  ledger.recorded({ key_id: 'k9', cost_micros: 400, created_at: at(Date.now()) });
  t.strictSame(
    changes.map((c) => [c.subject.kind, c.subject.id, c.before, c.after, c.budget.amount_micros]),
    [
      ['key', 'k1', 100, 500, 1_000],
      ['team', 't1', 100, 500, 5_000],
    ],
    'only budgeted subjects; each with its own budget',
  );
  t.equal(changes[1]!.periodStart, Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
});

t.test('a failed read fails the call and is tried again', async (t) => {
  let fail = true;
  const ledger = new MemoryBudgetLedger(() =>
    fail ? Promise.reject(new Error('disk')) : Promise.resolve(3),
  );
  await t.rejects(ledger.admit([key('k', 4)], 0), /disk/);
  fail = false;
  t.ok((await ledger.admit([key('k', 4)], 0)).admitted);
  t.notOk((await ledger.admit([key('k', 3)], 0)).admitted, 'spent 3 of 3');
});

t.test('holds of tasks under way are read with the spend, except a task that ended meanwhile', async (t) => {
  let answer: (tasks: OpenTask[]) => void = () => undefined;
  let readBegun: () => void = () => undefined;
  const begun = new Promise<void>((resolve) => (readBegun = resolve));
  const ledger = new MemoryBudgetLedger(
    () => Promise.resolve(100),
    Date.now,
    () =>
      new Promise((resolve) => {
        answer = resolve;
        readBegun();
      }),
  );
  const k1 = key('k1', 700);
  const reading = ledger.admit([k1], 0);
  await begun; // the open tasks are being read
  ledger.taskEnded('t-ended'); // its end was told before the read answered
  answer([
    { id: 't-open', micros: 500 },
    { id: 't-ended', micros: 700 },
  ]);
  t.ok((await reading).admitted, '100 + 500 < 700: only the task still under way holds');
  t.ok((await ledger.admit([k1], 200)).admitted, '600 < 700');
  t.notOk((await ledger.admit([k1], 0)).admitted, '100 + 500 + 200 ≥ 700');
  ledger.taskEnded('t-open');
  t.ok((await ledger.admit([k1], 0)).admitted, 'the task ended: 100 + 200 < 700');
});
