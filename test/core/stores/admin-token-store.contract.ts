/**
 * What every AdminTokenStore promises the admin token service, run against each implementation.
 * `makeStore(t)` gives fresh, empty storage and opens stores over it; opening again is a reopen.
 */
import type { Test } from 'tap';
import type { AdminTokenRecord, AdminTokenStore } from '../../../core/stores/admin-token-store';
import type { Opener } from '../../helpers/stores';

export type MakeAdminTokenStore = (t: Test) => Promise<Opener<AdminTokenStore>>;

let seq = 0;

export function newTokenRecord(over: Partial<AdminTokenRecord> = {}): AdminTokenRecord {
  const n = String(++seq).padStart(8, '0');
  return {
    id: `gat-${n}`,
    hash: `hash-${process.pid}-${n}`,
    description: `token ${n}`,
    role: 'viewer',
    created_at: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

export function adminTokenStoreContract(t: Test, makeStore: MakeAdminTokenStore): void {
  t.test('insert, then find by id and by hash, and list in insertion order', async (t) => {
    const store = await (await makeStore(t))();
    t.strictSame(await store.list(), [], 'empty at first');
    const team = newTokenRecord({ role: 'team_admin', team_id: 'team-a' });
    const plain = newTokenRecord();
    await store.insert(team);
    await store.insert(plain);
    t.strictSame(await store.findById(team.id), team, 'by id, exactly as inserted');
    t.strictSame(await store.findByHash(team.hash), team, 'by hash');
    t.strictSame(await store.list(), [team, plain]);
    t.notOk('team_id' in ((await store.findById(plain.id)) ?? {}), 'an absent team stays absent');
    t.equal(await store.findById('gat-missing0'), undefined, 'an unknown id');
    t.equal(await store.findByHash('no-such-hash'), undefined, 'an unknown hash');
  });

  t.test('insert fails on a taken id or hash and changes nothing', async (t) => {
    const store = await (await makeStore(t))();
    const token = newTokenRecord();
    await store.insert(token);
    await t.rejects(store.insert({ ...token, hash: 'another-hash' }), /already exists/, 'same id');
    await t.rejects(store.insert({ ...newTokenRecord(), hash: token.hash }), /already exists/, 'same hash');
    t.strictSame(await store.list(), [token], 'the first token alone, untouched');
    t.equal(await store.findByHash('another-hash'), undefined);
  });

  t.test('delete removes the token and returns it', async (t) => {
    const store = await (await makeStore(t))();
    const token = newTokenRecord({ role: 'admin' });
    const kept = newTokenRecord();
    await store.insert(token);
    await store.insert(kept);
    t.strictSame(await store.delete(token.id), token, 'returns the deleted record');
    t.equal(await store.findById(token.id), undefined, 'gone by id');
    t.equal(await store.findByHash(token.hash), undefined, 'gone by hash');
    t.strictSame(await store.list(), [kept]);
    t.equal(await store.delete(token.id), undefined, 'deleting again gives undefined');
  });

  t.test('tokens survive a reopen', async (t) => {
    const open = await makeStore(t);
    const first = await open();
    const tokens = [
      newTokenRecord(),
      newTokenRecord({ role: 'team_admin', team_id: 'team-b' }),
      newTokenRecord(),
    ];
    for (const token of tokens) await first.insert(token);
    await first.delete(tokens[2]!.id);
    await first.close();
    const second = await open();
    t.strictSame(await second.list(), tokens.slice(0, 2), 'inserts and deletes were kept');
    t.strictSame(await second.findByHash(tokens[1]!.hash), tokens[1]);
  });
}
