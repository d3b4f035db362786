/**
 * The lease renewer: every third of a lease, one renewal with each set once per member held in it; the
 * timer only while something is held; a failed renewal tried again the next round.
 */
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { LeaseRenewer, type Renewal } from '../../lib/lease-renewer';

const LEASE_MS = 60;

t.test('renews every held lease together, and stops when none is held', async (t) => {
  const calls: Renewal[] = [];
  const renewer = new LeaseRenewer(LEASE_MS, (renewal) => {
    calls.push(renewal);
    return Promise.resolve();
  });
  t.teardown(() => renewer.stop());
  renewer.hold('a', { member: 'a:5', sets: ['s1', 's2'] });
  renewer.hold('b', { member: 'b:7', sets: ['s2'] });
  t.strictSame(renewer.get('a'), { member: 'a:5', sets: ['s1', 's2'] });
  await sleep(LEASE_MS / 3 + 15);
  t.strictSame(calls[0], { keys: ['s1', 's2', 's2'], args: [LEASE_MS, 'a:5', 'a:5', 'b:7'] });

  t.ok(renewer.release('a'));
  t.notOk(renewer.release('a'), 'a lease is released once');
  calls.length = 0;
  await sleep(LEASE_MS / 3 + 15);
  t.strictSame(calls[0], { keys: ['s2'], args: [LEASE_MS, 'b:7'] }, 'the one left');

  renewer.release('b');
  calls.length = 0;
  await sleep(LEASE_MS);
  t.strictSame(calls, [], 'nothing held: no renewal runs');
});

t.test('a failed renewal is tried again the next round', async (t) => {
  let calls = 0;
  const renewer = new LeaseRenewer(LEASE_MS, () => {
    calls += 1;
    return Promise.reject(new Error('redis is down'));
  });
  t.teardown(() => renewer.stop());
  renewer.hold('a', { member: 'a', sets: ['s'] });
  await sleep(LEASE_MS + 20);
  t.ok(calls >= 2, `renewed ${calls} times despite failing`);
});
