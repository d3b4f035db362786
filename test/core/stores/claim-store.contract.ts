/**
 * What every ClaimStore promises spend alerts, run against each implementation (the embedded file,
 * MongoDB, Redis). `makeStore(t)` gives fresh, empty storage and opens stores over it; opening again is
 * a reopen, or, for `shared` storage, another instance's store over the same claims.
 */
import type { Test } from 'tap';
import type { ClaimStore } from '../../../core/stores/claim-store';
import type { Opener } from '../../helpers/stores';

export type MakeClaimStore = (t: Test) => Promise<Opener<ClaimStore>>;

const HOUR = 3_600_000;
let seq = 0;
const fresh = (): string => `alert:key:sk-claim${++seq}:month:1764547200000:5000000:80`;

export function claimStoreContract(t: Test, makeStore: MakeClaimStore, { shared = false } = {}): void {
  t.test('a name is claimed once; its owner may ask again', async (t) => {
    const store = await (await makeStore(t))();
    const name = fresh();
    const until = Date.now() + HOUR;
    t.equal(await store.claim(name, 'owner-a', until), true, 'the first claim wins');
    t.equal(
      await store.claim(name, 'owner-a', until),
      true,
      'the owner again (a retry whose answer was lost)',
    );
    t.equal(await store.claim(name, 'owner-b', until), false, 'another owner loses');
    t.equal(await store.claim(fresh(), 'owner-b', until), true, 'another name is free');
  });

  t.test('of claims made at once, exactly one wins', async (t) => {
    const open = await makeStore(t);
    const first = await open();
    const stores = shared ? [first, await open(), await open()] : [first, first, first];
    const name = fresh();
    const until = Date.now() + HOUR;
    const won = await Promise.all(
      [...stores, ...stores].map((store, i) => store.claim(name, `owner-${i}`, until)),
    );
    t.equal(won.filter(Boolean).length, 1, `one winner of ${won.length}`);
  });

  t.test('an expired claim is free again', async (t) => {
    const store = await (await makeStore(t))();
    const name = fresh();
    t.equal(await store.claim(name, 'owner-a', Date.now() + 100), true);
    await new Promise((r) => setTimeout(r, 300));
    t.equal(await store.claim(name, 'owner-b', Date.now() + HOUR), true, 'taken by another owner');
    t.equal(
      await store.claim(name, 'owner-a', Date.now() + HOUR),
      false,
      'the first owner no longer holds it',
    );
  });

  t.test('claims outlive the store that made them', async (t) => {
    const open = await makeStore(t);
    const first = await open();
    const name = fresh();
    await first.claim(name, 'owner-a', Date.now() + HOUR);
    await first.close();
    const again = await open();
    t.equal(await again.claim(name, 'owner-b', Date.now() + HOUR), false, 'still held after a reopen');
  });
}
