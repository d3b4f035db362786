/**
 * The lookup caches: an expired entry reads as missing, so the caller goes to the store, but is not
 * deleted by the read (deleting a cache's last entry clears all its slots), and a new value replaces it.
 */
import t from 'tap';
import { lookupCache } from '../../../core/base/lookup-cache';
import { manualClock } from '../../helpers/clock';

t.test('an expired entry reads as missing and stays until replaced', (t) => {
  const disposed: string[] = [];
  const clock = manualClock();
  // ttlResolution 0: every check reads the clock (lru-cache otherwise keeps a reading for 1 ms of real time).
  const cache = lookupCache<string, string>(10_000, 40, {
    dispose: (v) => disposed.push(v),
    perf: { now: clock.read },
    ttlResolution: 0,
  });
  cache.set('key', 'first');
  clock.tick(40);
  t.equal(cache.get('key'), 'first', 'live for its whole TTL');
  clock.tick(1);
  t.equal(cache.get('key'), undefined, 'expired: missing');
  t.notOk(cache.has('key'));
  t.equal(cache.size, 1, 'but not deleted by the read');
  t.strictSame(disposed, []);
  cache.set('key', 'second');
  t.equal(cache.get('key'), 'second', 'the store read replaces it');
  t.strictSame(disposed, ['first'], 'the old value is disposed once, as replaced');
  cache.delete('key');
  t.equal(cache.size, 0, 'deleted on purpose (an event) it goes');
  t.end();
});

t.test('a cache keeps a reading of its clock for a hundredth of its TTL, unless told otherwise', (t) => {
  t.equal(lookupCache<string, string>(10, 1_000).ttlResolution, 10, "a 1 s TTL: 10 ms, not lru-cache's 1 ms");
  t.equal(lookupCache<string, string>(10, 60_000).ttlResolution, 600);
  t.equal(lookupCache<string, string>(10, 50).ttlResolution, 1, 'never under 1 ms');
  t.equal(
    lookupCache<string, string>(10, 1_000, { ttlResolution: 0 }).ttlResolution,
    0,
    'a given clock is read each time',
  );
  t.end();
});
