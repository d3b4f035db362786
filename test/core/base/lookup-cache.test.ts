/**
 * The lookup caches: an expired entry reads as missing, so the caller goes to the store, but is not
 * deleted by the read (deleting a cache's last entry clears all its slots), and a new value replaces it.
 */
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { lookupCache } from '../../../core/base/lookup-cache';

t.test('an expired entry reads as missing and stays until replaced', async (t) => {
  const disposed: string[] = [];
  const cache = lookupCache<string, string>(10_000, 40, { dispose: (v) => disposed.push(v) });
  cache.set('key', 'first');
  t.equal(cache.get('key'), 'first');
  await sleep(60);
  t.equal(cache.get('key'), undefined, 'expired: missing');
  t.notOk(cache.has('key'));
  t.equal(cache.size, 1, 'but not deleted by the read');
  t.strictSame(disposed, []);
  cache.set('key', 'second');
  t.equal(cache.get('key'), 'second', 'the store read replaces it');
  t.strictSame(disposed, ['first'], 'the old value is disposed once, as replaced');
  cache.delete('key');
  t.equal(cache.size, 0, 'deleted on purpose (an event) it goes');
});
