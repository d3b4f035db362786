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

/** `shared`: stores opened over the same storage see each other's writes at once (several instances, one store). */
export function keyStoreContract(t: Test, makeStore: MakeKeyStore, { shared = false } = {}): void {
  t.test('insertFirst: one first key when instances start together, none once there are keys', async (t) => {
    const open = await makeStore(t);
    // Shared storage: one store per "instance"; the embedded store is one instance's, so one store.
    const first = await open();
    const stores = shared ? [first, await open(), await open()] : [first, first, first];
    const records = stores.map(() => newKeyRecord());
    const won = await Promise.all(stores.map((s, i) => s.insertFirst(records[i]!)));
    t.equal(won.filter(Boolean).length, 1, 'exactly one instance created it');
    const winner = records[won.indexOf(true)]!;
    t.strictSame(await first.list(), [winner], 'one key in the store');
    t.equal(await first.insertFirst(newKeyRecord()), false, 'not again while there are keys');
  });

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

  t.test('expiry and budget: stored, changed, cleared with undefined, kept over a reopen', async (t) => {
    const open = await makeStore(t);
    const store = await open();
    const key = newKeyRecord({
      expires_at: '2030-01-01T00:00:00.000Z',
      budget: { amount_micros: 25_000_000, period: 'month' },
    });
    const old = newKeyRecord(); // a record from before these fields existed
    await store.insert(key);
    await store.insert(old);
    t.strictSame(await store.findById(key.id), key, 'inserted with both fields');
    t.notOk('expires_at' in ((await store.findById(old.id)) ?? {}), 'a record without them loads as it was');
    t.notOk('budget' in ((await store.findById(old.id)) ?? {}));

    const changed = await store.update(old.id, {
      expires_at: '2031-06-01T12:00:00.000Z',
      budget: { amount_micros: 0, period: 'total' },
    });
    t.strictSame(changed, {
      ...old,
      expires_at: '2031-06-01T12:00:00.000Z',
      budget: { amount_micros: 0, period: 'total' },
    });
    const cleared = await store.update(key.id, { expires_at: undefined, budget: undefined });
    t.notOk('expires_at' in (cleared ?? {}), 'a cleared expiry is absent, not undefined or null');
    t.notOk('budget' in (cleared ?? {}), 'so is a cleared budget');
    const bare: Record<string, unknown> = { ...key };
    delete bare.expires_at;
    delete bare.budget;
    t.strictSame(cleared, bare, 'the rest of the record is unchanged');
    await store.close();

    const again = await open();
    const reread = await again.findById(key.id);
    t.notOk(reread && ('expires_at' in reread || 'budget' in reread), 'still absent after a reopen');
    t.strictSame(await again.findById(old.id), changed, 'the changed record after a reopen');
  });

  t.test('guardrails: stored, changed, cleared with undefined, kept over a reopen', async (t) => {
    const open = await makeStore(t);
    const store = await open();
    const key = newKeyRecord({ guardrails: ['pii-mask', 'no.secrets_v2'] });
    const old = newKeyRecord(); // a record from before the field existed
    await store.insert(key);
    await store.insert(old);
    t.strictSame(await store.findById(key.id), key, 'inserted with its guardrails, in their order');
    t.strictSame(await store.findByHash(key.hash), key, 'and so by hash');
    t.notOk('guardrails' in ((await store.findById(old.id)) ?? {}), 'a record without them loads as it was');

    const changed = await store.update(old.id, { guardrails: ['strict'] });
    t.strictSame(changed, { ...old, guardrails: ['strict'] }, 'given to a record that had none');
    const cleared = await store.update(key.id, { guardrails: undefined });
    t.notOk('guardrails' in (cleared ?? {}), 'cleared: absent, not undefined or null');
    const bare: Record<string, unknown> = { ...key };
    delete bare.guardrails;
    t.strictSame(cleared, bare, 'the rest of the record is unchanged');
    await store.close();

    const again = await open();
    t.strictSame(await again.findById(old.id), changed, 'the given guardrails after a reopen');
    t.notOk('guardrails' in ((await again.findById(key.id)) ?? {}), 'the cleared ones still absent');
  });

  t.test('allowed tools: stored, changed, cleared with undefined, kept over a reopen', async (t) => {
    const open = await makeStore(t);
    const store = await open();
    const key = newKeyRecord({ allowed_tools: ['demo__add', 'search__*', '*__read.v2'] });
    const old = newKeyRecord(); // a record from before the field existed
    await store.insert(key);
    await store.insert(old);
    t.strictSame(await store.findById(key.id), key, 'inserted with its tools, in their order');
    t.strictSame(await store.findByHash(key.hash), key, 'and so by hash');
    t.notOk(
      'allowed_tools' in ((await store.findById(old.id)) ?? {}),
      'a record without them loads as it was',
    );

    const changed = await store.update(old.id, { allowed_tools: ['demo__*'] });
    t.strictSame(changed, { ...old, allowed_tools: ['demo__*'] }, 'given to a record that had none');
    const cleared = await store.update(key.id, { allowed_tools: undefined });
    t.notOk('allowed_tools' in (cleared ?? {}), 'cleared: absent, not undefined or null');
    const bare: Record<string, unknown> = { ...key };
    delete bare.allowed_tools;
    t.strictSame(cleared, bare, 'the rest of the record is unchanged');
    await store.close();

    const again = await open();
    t.strictSame(await again.findById(old.id), changed, 'the given tools after a reopen');
    t.notOk('allowed_tools' in ((await again.findById(key.id)) ?? {}), 'the cleared ones still absent');
  });

  t.test('page: id order, cursor, limit, status at a given time, case-insensitive search', async (t) => {
    const store = await (await makeStore(t))();
    const now = '2026-06-01T00:00:00.000Z';
    const make = (id: string, over: Partial<KeyRecord> = {}) => newKeyRecord({ id, ...over });
    const keys = [
      make('sk-PAGE0005', { description: 'Billing service' }),
      make('sk-page0001', { description: 'ops' }),
      make('sk-page0003', { enabled: false, description: 'old billing' }),
      make('sk-page0002', { expires_at: '2026-05-31T23:59:59.999Z' }), // expired at `now`
      make('sk-page0004', { expires_at: now }), // expires exactly at `now`: expired
      make('sk-page0006', { expires_at: '2026-06-01T00:00:00.001Z', enabled: false }),
      make('sk-page0007', { expires_at: '2027-01-01T00:00:00.000Z' }),
    ];
    for (const key of keys) await store.insert(key);
    const ids = async (query: Partial<Parameters<KeyStore['page']>[0]>) =>
      (await store.page({ limit: 100, now, ...query })).map((k) => k.id);

    t.strictSame(
      await ids({}),
      [...keys.map((k) => k.id)].sort(),
      'every key, sorted by id (code-unit order)',
    );
    t.strictSame(await ids({ limit: 2 }), ['sk-PAGE0005', 'sk-page0001'], 'at most limit');
    t.strictSame(
      await ids({ limit: 2, after: 'sk-page0001' }),
      ['sk-page0002', 'sk-page0003'],
      'after the cursor',
    );
    t.strictSame(await ids({ after: 'sk-page0007' }), [], 'nothing after the last');
    t.strictSame(await ids({ status: 'expired' }), ['sk-page0002', 'sk-page0004'], 'expired');
    t.strictSame(
      await ids({ status: 'enabled' }),
      ['sk-PAGE0005', 'sk-page0001', 'sk-page0007'],
      'enabled and not expired',
    );
    t.strictSame(
      await ids({ status: 'disabled' }),
      ['sk-page0003', 'sk-page0006'],
      'disabled and not expired',
    );
    t.strictSame(await ids({ q: 'BILLING' }), ['sk-PAGE0005', 'sk-page0003'], 'description, any case');
    t.strictSame(await ids({ q: 'page000' }), keys.map((k) => k.id).sort(), 'id, any case');
    t.strictSame(await ids({ q: 'a.c' }), [], 'the search is a plain substring, not a pattern');
    t.strictSame(await ids({ q: 'billing', status: 'enabled', after: 'sk-PAGE0005' }), [], 'filters combine');
  });
}
