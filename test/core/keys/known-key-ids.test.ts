/**
 * The key ids the failed-auth guard checks guesses against: listed from the store only when asked about
 * an id not seen, at most once per gap, shared by every request waiting, and never so stale that a key
 * created before a request arrived is missed.
 */
import t from 'tap';
import { KnownKeyIds } from '../../../core/keys/known-key-ids';

const GAP_MS = 40;

function store(): { ids: string[]; listings: () => number; known: KnownKeyIds } {
  const ids = ['sk-aaaaaaaa'];
  let listings = 0;
  const known = new KnownKeyIds(() => {
    listings++;
    return Promise.resolve([...ids]);
  }, GAP_MS);
  return { ids, listings: () => listings, known };
}

t.test('a guess waits for one listing shared by every request, then is refused', async (t) => {
  const { listings, known } = store();
  const now = performance.now();
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => known.has(`sk-guess${i}`, now)));
  t.strictSame(new Set(answers), new Set([false]), 'twenty guesses: none known');
  t.equal(listings(), 1, 'one listing for all of them');
  t.equal(
    await known.has('sk-aaaaaaaa', performance.now()),
    true,
    'a listed id is known without another listing',
  );
  t.equal(listings(), 1);
});

t.test('a key created elsewhere after the last listing is found by the next one', async (t) => {
  const { ids, listings, known } = store();
  t.equal(await known.has('sk-bbbbbbbb', performance.now()), false, 'not there yet');
  ids.push('sk-bbbbbbbb'); // another instance creates it
  const started = Date.now();
  t.equal(await known.has('sk-bbbbbbbb', performance.now()), true, 'a request that came after: found');
  t.equal(listings(), 2);
  t.ok(Date.now() - started >= GAP_MS - 5, 'the second listing waited out the gap');
});

t.test('a key this instance creates is known at once', async (t) => {
  const { listings, known } = store();
  known.add('sk-cccccccc');
  t.equal(await known.has('sk-cccccccc', performance.now()), true);
  t.equal(listings(), 0, 'no listing');
});
