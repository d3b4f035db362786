/**
 * The key service's caches: a flood of one unknown key reaches the store once per TTL, a new key works at
 * once here and within the TTL elsewhere, and a key event evicts just that key. The caches run on a
 * manual clock: a TTL passes when the test moves it.
 */
import t from 'tap';
import { generateKey, KeyHasher } from '../../../core/keys/api-key';
import { KeyService } from '../../../core/keys/key-service';
import { EmbeddedKeyStore } from '../../../core/stores/embedded/embedded-key-store';
import type { KeyStore } from '../../../core/stores/key-store';
import { manualClock } from '../../helpers/clock';
import { tempDir, type Teardown } from '../../helpers/gateway';

const TTL = 300;
const hasher = new KeyHasher(Buffer.from('test-secret'));

/** An embedded store that counts findByHash calls. */
async function countingStore(t: Teardown): Promise<{ store: KeyStore; reads: () => number }> {
  const inner = await EmbeddedKeyStore.open(await tempDir(t));
  t.teardown(() => inner.close());
  let reads = 0;
  const store: KeyStore = Object.assign(Object.create(inner) as KeyStore, {
    findByHash: (hash: string) => {
      reads++;
      return inner.findByHash(hash);
    },
  });
  return { store, reads: () => reads };
}

/** One clock for the instances of a test, as real instances share time. */
const clock = manualClock();
const service = (store: KeyStore): KeyService =>
  new KeyService(store, hasher, { cacheTtlMs: TTL, cacheMax: 1_000, clock: clock.read });

t.test('an unknown key reaches the store once per TTL', async (t) => {
  const { store, reads } = await countingStore(t);
  const keys = service(store);
  const { key: unknown } = generateKey();
  let found = 0;
  for (let i = 0; i < 200; i++) if (await keys.lookup(unknown)) found++;
  t.equal(found, 0, 'never found');
  t.equal(reads(), 1, '200 lookups, one store read');
  clock.tick(TTL);
  await keys.lookup(unknown);
  t.equal(reads(), 1, 'remembered for its whole TTL');
  clock.tick(1);
  await keys.lookup(unknown);
  t.equal(reads(), 2, 'asked again once the entry expired');
  await keys.lookup('not-a-key');
  t.equal(reads(), 2, 'a malformed key never reaches the store');
});

t.test('a new key works at once here, and within the TTL on another instance', async (t) => {
  const { store } = await countingStore(t);
  const here = service(store);
  const elsewhere = service(store);
  const created = await here.create({});
  t.equal((await here.lookup(created.key))?.id, created.record.id, 'at once on the creating instance');

  // Another instance saw the key before it existed (only possible in a test: keys are random).
  const { key, id } = generateKey();
  t.equal(await elsewhere.lookup(key), undefined, 'unknown, and remembered as unknown');
  await store.insert({ ...created.record, id, hash: hasher.hash(key) });
  t.equal(await elsewhere.lookup(key), undefined, 'still the negative entry, within the TTL');
  clock.tick(TTL + 1);
  t.equal((await elsewhere.lookup(key))?.id, id, 'known once the TTL has passed');
});

t.test('a change is seen at once where it was made; evict() drops one key only', async (t) => {
  const { store, reads } = await countingStore(t);
  const keys = service(store);
  const a = await keys.create({});
  const b = await keys.create({});
  await keys.lookup(a.key);
  await keys.lookup(b.key);
  const before = reads();
  await keys.update(a.record.id, { enabled: false });
  t.equal((await keys.lookup(a.key))?.enabled, false, 'the change, at once');
  t.equal(reads(), before + 1, 'a read again');
  await keys.lookup(b.key);
  t.equal(reads(), before + 1, 'b still cached');
  await store.update(b.record.id, { description: 'changed elsewhere' });
  keys.evict(b.record.id); // what a key event from another instance does
  t.equal((await keys.lookup(b.key))?.description, 'changed elsewhere');
  await keys.delete(a.record.id);
  t.equal(await keys.lookup(a.key), undefined, 'deleted: unknown at once');
});
