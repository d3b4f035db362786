/**
 * The lease renewer: every third of a lease, one renewal with each set once per member held in it; the
 * timer only while something is held; a failed renewal tried again the next round. Time is the subject,
 * so it is a fake clock moved by the test (the renewer reads the process's timers; nothing here does I/O).
 */
import t from 'tap';
import { LeaseRenewer, type Renewal } from '../../lib/lease-renewer';
import { fakeClock } from '../helpers/clock';

const LEASE_MS = 3_000;
const ROUND_MS = LEASE_MS / 3;

t.test('renews every held lease together, and stops when none is held', async (t) => {
  const clock = fakeClock(t);
  const calls: Renewal[] = [];
  const renewer = new LeaseRenewer(LEASE_MS, (renewal) => {
    calls.push(renewal);
    return Promise.resolve();
  });
  t.teardown(() => renewer.stop());
  renewer.hold('a', { member: 'a:5', sets: ['s1', 's2'] });
  renewer.hold('b', { member: 'b:7', sets: ['s2'] });
  t.strictSame(renewer.get('a'), { member: 'a:5', sets: ['s1', 's2'] });
  await clock.tickAsync(ROUND_MS - 1);
  t.strictSame(calls, [], 'not before a third of a lease');
  await clock.tickAsync(1);
  t.strictSame(
    calls,
    [{ keys: ['s1', 's2', 's2'], args: [LEASE_MS, 'a:5', 'a:5', 'b:7'] }],
    'one call for all',
  );

  t.ok(renewer.release('a'));
  t.notOk(renewer.release('a'), 'a lease is released once');
  calls.length = 0;
  await clock.tickAsync(ROUND_MS);
  t.strictSame(calls, [{ keys: ['s2'], args: [LEASE_MS, 'b:7'] }], 'the one left');

  renewer.release('b');
  calls.length = 0;
  t.equal(clock.countTimers(), 0, 'nothing held: no timer');
  await clock.tickAsync(LEASE_MS * 10);
  t.strictSame(calls, [], 'and no renewal runs');
});

t.test('a failed renewal is tried again the next round', async (t) => {
  const clock = fakeClock(t);
  let calls = 0;
  const renewer = new LeaseRenewer(LEASE_MS, () => {
    calls += 1;
    return Promise.reject(new Error('redis is down'));
  });
  t.teardown(() => renewer.stop());
  renewer.hold('a', { member: 'a', sets: ['s'] });
  await clock.tickAsync(ROUND_MS);
  t.equal(calls, 1, 'renewed at a third of a lease, and failed');
  await clock.tickAsync(ROUND_MS);
  t.equal(calls, 2, 'tried again a round later');
  await clock.tickAsync(ROUND_MS);
  t.equal(calls, 3, 'and every round after');
});
