/**
 * What every ClaimStore promises spend alerts, run against each implementation (the embedded file,
 * MongoDB, Redis). `makeStore(t, clock)` gives fresh, empty storage and opens stores over it that read
 * `clock`; opening again is a reopen, or, for `shared` storage, another instance's store over the same
 * claims. A store that judges expiry by the clock it is given runs on a fake one the tests move; a store
 * whose claims expire on its own clock (`ownClock`: Redis) gets the real one, and the tests wait for it.
 */
import type { Test } from 'tap';
import type { ClaimStore } from '../../../core/stores/claim-store';
import { manualClock } from '../../helpers/clock';
import type { Opener } from '../../helpers/stores';
import { until } from '../../helpers/wait';

export type MakeClaimStore = (t: Test, clock: () => number) => Promise<Opener<ClaimStore>>;

export interface ClaimContractOptions {
  /** Several stores over the same claims (instances), not one store reopened. */
  readonly shared?: boolean;
  /** Claims expire on the store's own clock, which no test can move. */
  readonly ownClock?: boolean;
}

const HOUR = 3_600_000;
const EXPIRY_MS = 100;
let seq = 0;
const fresh = (): string => `alert:key:sk-claim${++seq}:month:1764547200000:5000000:80`;

export function claimStoreContract(
  t: Test,
  makeStore: MakeClaimStore,
  { shared = false, ownClock = false }: ClaimContractOptions = {},
): void {
  /** The clock the stores of one test read, and the fake one behind it when they read that. */
  const clocks = () => {
    const fake = manualClock();
    return { fake, now: ownClock ? Date.now : fake.read };
  };

  t.test('a name is claimed once; its owner may ask again', async (t) => {
    const { now } = clocks();
    const store = await (await makeStore(t, now))();
    const name = fresh();
    const expiresAt = now() + HOUR;
    t.equal(await store.claim(name, 'owner-a', expiresAt), true, 'the first claim wins');
    t.equal(
      await store.claim(name, 'owner-a', expiresAt),
      true,
      'the owner again (a retry whose answer was lost)',
    );
    t.equal(await store.claim(name, 'owner-b', expiresAt), false, 'another owner loses');
    t.equal(await store.claim(fresh(), 'owner-b', expiresAt), true, 'another name is free');
  });

  t.test('of claims made at once, exactly one wins', async (t) => {
    const { now } = clocks();
    const open = await makeStore(t, now);
    const first = await open();
    const stores = shared ? [first, await open(), await open()] : [first, first, first];
    const name = fresh();
    const expiresAt = now() + HOUR;
    const won = await Promise.all(
      [...stores, ...stores].map((store, i) => store.claim(name, `owner-${i}`, expiresAt)),
    );
    t.equal(won.filter(Boolean).length, 1, `one winner of ${won.length}`);
  });

  t.test('an expired claim is free again', async (t) => {
    const { fake, now } = clocks();
    const store = await (await makeStore(t, now))();
    const name = fresh();
    const expiresAt = now() + EXPIRY_MS;
    t.equal(await store.claim(name, 'owner-a', expiresAt), true);
    if (ownClock) {
      // The store forgets the claim on its own clock: another owner's claim is refused (changing
      // nothing) until then, so it is asked until it wins, and when it won is checked.
      const won = await until(
        () => store.claim(name, 'owner-b', Date.now() + HOUR),
        (won) => won,
        { what: 'the claim to expire' },
      );
      t.equal(won, true, 'taken by another owner');
      t.ok(Date.now() >= expiresAt, 'not before it expired');
    } else {
      fake.tick(EXPIRY_MS - 1);
      t.equal(await store.claim(name, 'owner-b', now() + HOUR), false, 'held until it expires');
      fake.tick(1);
      t.equal(await store.claim(name, 'owner-b', now() + HOUR), true, 'taken by another owner');
    }
    t.equal(await store.claim(name, 'owner-a', now() + HOUR), false, 'the first owner no longer holds it');
  });

  t.test('claims outlive the store that made them', async (t) => {
    const { now } = clocks();
    const open = await makeStore(t, now);
    const first = await open();
    const name = fresh();
    await first.claim(name, 'owner-a', now() + HOUR);
    await first.close();
    const again = await open();
    t.equal(await again.claim(name, 'owner-b', now() + HOUR), false, 'still held after a reopen');
  });
}
