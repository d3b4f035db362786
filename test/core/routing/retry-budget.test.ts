/** The retry budget: max(min, percent of the requests in flight) retries at once. */
import t from 'tap';
import { RetryBudget } from '../../../core/routing/retry-budget';

t.test('the minimum holds with few requests in flight', (t) => {
  const budget = new RetryBudget({ percent: 20, min: 3 });
  for (let i = 0; i < 4; i++) budget.requestStarted();
  t.ok(budget.tryRetry());
  t.ok(budget.tryRetry());
  t.ok(budget.tryRetry());
  t.notOk(budget.tryRetry(), 'a fourth retry at once is refused');
  budget.retryEnded();
  t.ok(budget.tryRetry(), 'a retry that ended gives its place back');
  t.end();
});

t.test('the percentage holds with many requests in flight', (t) => {
  const budget = new RetryBudget({ percent: 20, min: 3 });
  for (let i = 0; i < 50; i++) budget.requestStarted();
  let granted = 0;
  while (budget.tryRetry()) granted++;
  t.equal(granted, 10, '20 % of 50');
  for (let i = 0; i < 50; i++) budget.requestEnded();
  t.strictSame(budget.inFlight, { requests: 0, retries: 10 });
  t.end();
});

t.test('min 0 and percent 0: no retry at all; configure applies at once', (t) => {
  const budget = new RetryBudget({ percent: 0, min: 0 });
  budget.requestStarted();
  t.notOk(budget.tryRetry());
  budget.configure({ percent: 100, min: 0 });
  t.ok(budget.tryRetry());
  t.end();
});
