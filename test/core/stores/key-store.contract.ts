/**
 * What every KeyStore promises the key service and the admin API, run against each implementation.
 * `makeStore(t)` gives fresh, empty storage and opens stores over it; opening again is a reopen.
 */
import type { Test } from 'tap';
import type { KeyRecord, KeyStore } from '../../../core/stores/key-store';
import type { Opener } from '../../helpers/stores';

export type MakeKeyStore = (t: Test) => Promise<Opener<KeyStore>>;

let seq = 0;

export function newKeyRecord(over: Partial<KeyRecord> = {}): KeyRecord {
  const n = String(++seq).padStart(8, '0');
  return {
    id: `sk-${n}`,
    hash: `hash-${process.pid}-${n}`,
    description: `key ${n}`,
    enabled: true,
    allowed_models: [],
    created_at: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

export function keyStoreContract(t: Test, makeStore: MakeKeyStore): void {
  t.test('insert, then find by id and by hash, and list', async (t) => {
    const store = await (await makeStore(t))();
    t.strictSame(await store.list(), [], 'empty at first');
    const key = newKeyRecord({ allowed_models: ['model-a', 'model-b'], rate_limit_rpm: 30 });
    await store.insert(key);
    t.strictSame(await store.findById(key.id), key, 'by id, exactly as inserted');
    t.strictSame(await store.findByHash(key.hash), key, 'by hash');
    t.strictSame(await store.list(), [key]);
    t.equal(await store.findById('sk-missing0'), undefined, 'an unknown id');
    t.equal(await store.findByHash('no-such-hash'), undefined, 'an unknown hash');
    const plain = newKeyRecord();
    await store.insert(plain);
    t.notOk(
      'rate_limit_rpm' in ((await store.findById(plain.id)) ?? {}),
      'an absent optional field stays absent',
    );
  });

  t.test('insert fails on a taken id and changes nothing', async (t) => {
    const store = await (await makeStore(t))();
    const key = newKeyRecord();
    await store.insert(key);
    await t.rejects(
      store.insert({ ...key, hash: 'another-hash', description: 'impostor' }),
      /already exists/,
    );
    t.strictSame(await store.findById(key.id), key, 'the first key is untouched');
    t.equal(await store.findByHash('another-hash'), undefined, 'the refused key is not findable');
    t.equal((await store.list()).length, 1);
  });

  t.test('update changes the given fields and returns the record', async (t) => {
    const store = await (await makeStore(t))();
    const key = newKeyRecord({ rate_limit_rpm: 10 });
    const other = newKeyRecord();
    await store.insert(key);
    await store.insert(other);

    const disabled = await store.update(key.id, { enabled: false });
    t.strictSame(disabled, { ...key, enabled: false }, 'returns the updated record');
    t.strictSame(await store.findByHash(key.hash), disabled, 'lookups by hash see the change');
    const changed = await store.update(key.id, { allowed_models: ['model-c'], description: 'ops' });
    t.strictSame(changed, { ...key, enabled: false, allowed_models: ['model-c'], description: 'ops' });
    const unlimited = await store.update(key.id, { rate_limit_rpm: undefined });
    t.equal(unlimited?.rate_limit_rpm, undefined, 'a field given as undefined is cleared');
    t.equal((await store.findById(key.id))?.rate_limit_rpm, undefined);
    t.strictSame(await store.findById(other.id), other, 'other keys are untouched');
    t.strictSame(
      (await store.list()).map((k) => k.id),
      [key.id, other.id],
      'an update does not move a key in the list',
    );
    t.equal(
      await store.update('sk-missing0', { enabled: false }),
      undefined,
      'an unknown id gives undefined',
    );
    t.equal((await store.list()).length, 2, 'and creates nothing');
  });

  t.test('delete removes the key and returns it', async (t) => {
    const store = await (await makeStore(t))();
    const key = newKeyRecord();
    const kept = newKeyRecord();
    await store.insert(key);
    await store.insert(kept);
    t.strictSame(await store.delete(key.id), key, 'returns the deleted record');
    t.equal(await store.findById(key.id), undefined, 'gone by id');
    t.equal(await store.findByHash(key.hash), undefined, 'gone by hash');
    t.strictSame(await store.list(), [kept], 'gone from the list');
    t.equal(await store.delete(key.id), undefined, 'deleting again gives undefined');
    t.equal(await store.delete('sk-missing0'), undefined, 'so does an unknown id');
    await store.insert({ ...key, description: 'again' });
    t.equal((await store.findById(key.id))?.description, 'again', 'a deleted id may be used again');
  });

  t.test('keys survive a reopen, in insertion order', async (t) => {
    const open = await makeStore(t);
    const first = await open();
    const keys = [
      newKeyRecord(),
      newKeyRecord({ allowed_models: ['m'] }),
      newKeyRecord({ rate_limit_rpm: 5 }),
    ];
    for (const key of keys) await first.insert(key);
    const updated = await first.update(keys[1]!.id, { enabled: false });
    await first.delete(keys[2]!.id);
    await first.close();

    const second = await open();
    t.strictSame(await second.list(), [keys[0], updated], 'inserts, updates and deletes were kept');
    t.strictSame(await second.findByHash(keys[1]!.hash), updated, 'and the hash lookup with them');
    t.equal(await second.findByHash(keys[2]!.hash), undefined);
  });
}
