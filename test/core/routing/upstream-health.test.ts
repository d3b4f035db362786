/** Outlier ejection: runs of failures, the doubling and its cap, the reset of the doubling, and off. */
import t from 'tap';
import { UpstreamHealth, type Ejection, type EjectionOptions } from '../../../core/routing/upstream-health';

const OPTIONS: EjectionOptions = { consecutiveFailures: 5, baseMs: 30_000, maxMs: 300_000 };

function health(options = OPTIONS) {
  const ejections: Ejection[] = [];
  const returned: string[] = [];
  const h = new UpstreamHealth(options, {
    ejected: (e) => void ejections.push(e),
    returned: (u) => void returned.push(u),
  });
  return { h, ejections, returned };
}

const fail = (h: UpstreamHealth, n: number, now: number): void => {
  for (let i = 0; i < n; i++) h.failure('up', now);
};

t.test('five failures in a row eject for base; it returns after', (t) => {
  const { h, ejections, returned } = health();
  fail(h, 4, 1_000);
  t.equal(h.ejectedUntil('up', 1_000), 0, 'four are not enough');
  t.equal(h.ejectedCount, 0);
  h.failure('up', 1_000);
  t.equal(h.ejectedUntil('up', 1_000), 31_000);
  t.equal(h.ejectedCount, 1);
  t.strictSame(ejections, [{ upstream: 'up', until: 31_000, times: 1 }]);
  t.equal(h.ejectedUntil('other', 1_000), 0, 'per upstream');
  t.equal(h.ejectedUntil('up', 30_999), 31_000);
  t.equal(h.ejectedUntil('up', 31_000), 0, 'back in service when its time is up');
  t.equal(h.ejectedCount, 0);
  t.strictSame(returned, ['up']);
  t.end();
});

t.test('a success breaks the run', (t) => {
  const { h, ejections } = health();
  fail(h, 4, 0);
  h.success('up');
  fail(h, 4, 0);
  t.equal(ejections.length, 0);
  h.failure('up', 0);
  t.equal(ejections.length, 1);
  t.end();
});

t.test('failures while ejected do not count; a return starts a new run', (t) => {
  const { h, ejections } = health();
  fail(h, 5, 0);
  fail(h, 10, 1_000);
  t.equal(ejections.length, 1);
  fail(h, 4, 31_000);
  t.equal(ejections.length, 1, 'four after the return are not yet an ejection');
  t.end();
});

t.test('each repeat doubles, up to max; a quiet max resets the doubling', (t) => {
  const { h, ejections } = health();
  let now = 0;
  const durations: number[] = [];
  for (let i = 0; i < 6; i++) {
    fail(h, 5, now);
    const e = ejections[ejections.length - 1]!;
    durations.push(e.until - now);
    now = e.until; // fails again as soon as it returns
  }
  t.strictSame(durations, [30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
  now += 300_000; // a whole max without an ejection
  fail(h, 5, now);
  t.equal(ejections[ejections.length - 1]!.until - now, 30_000, 'back to base');
  t.equal(ejections[ejections.length - 1]!.times, 1);
  t.end();
});

t.test('consecutive_failures 0 never ejects', (t) => {
  const { h, ejections } = health({ ...OPTIONS, consecutiveFailures: 0 });
  fail(h, 100, 0);
  t.equal(ejections.length, 0);
  t.equal(h.ejectedUntil('up', 0), 0);
  t.end();
});

t.test('an ejection from another instance applies unless a longer one runs; it is not re-announced', (t) => {
  const { h, ejections } = health();
  t.ok(h.apply({ upstream: 'up', until: 10_000, times: 2 }, 0));
  t.equal(h.ejectedUntil('up', 5_000), 10_000);
  t.notOk(h.apply({ upstream: 'up', until: 9_000, times: 1 }, 0), 'a shorter one changes nothing');
  t.notOk(h.apply({ upstream: 'x', until: 5, times: 1 }, 10), 'an expired one is ignored');
  t.equal(ejections.length, 0);
  const view = h.view(5_000).get('up');
  t.equal(view?.times_ejected, 2);
  t.equal(view?.ejected_until, new Date(10_000).toISOString());
  t.end();
});
