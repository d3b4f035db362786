/**
 * What every TeamStore promises the team service and the admin API, run against each implementation.
 * `makeStore(t)` gives fresh, empty storage and opens stores over it; opening again is a reopen.
 */
import type { Test } from 'tap';
import { TeamNameTaken, type TeamRecord, type TeamStore } from '../../../core/stores/team-store';
import type { Opener } from '../../helpers/stores';

export type MakeTeamStore = (t: Test) => Promise<Opener<TeamStore>>;

let seq = 0;

export function newTeamRecord(over: Partial<TeamRecord> = {}): TeamRecord {
  const n = String(++seq).padStart(12, '0');
  return {
    id: `team-${n}`,
    name: `team ${n}`,
    allowed_models: [],
    metadata: {},
    created_at: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

/** `shared`: stores opened over the same storage see each other's writes at once (several instances, one store). */
export function teamStoreContract(t: Test, makeStore: MakeTeamStore, { shared = false } = {}): void {
  t.test('insert, find by id, list in name order', async (t) => {
    const store = await (await makeStore(t))();
    t.strictSame(await store.list(), [], 'empty at first');
    const platform = newTeamRecord({
      name: 'platform',
      budget: { amount_micros: 5_000_000, period: 'month' },
      rate_limit_rpm: 100,
      rate_limit_tpm: 20_000,
      max_concurrent: 4,
      allowed_models: ['model-a'],
      guardrails: ['pii-mask', 'strict'],
      allowed_tools: ['demo__add', 'search__*'],
      metadata: { cost_centre: 'cc-17', owner: 'ana' },
    });
    const billing = newTeamRecord({ name: 'billing' });
    const zebra = newTeamRecord({ name: 'Zebra' });
    for (const team of [platform, billing, zebra]) await store.insert(team);
    t.strictSame(await store.findById(platform.id), platform, 'by id, exactly as inserted');
    t.equal(await store.findById('team-missing'), undefined, 'an unknown id');
    t.strictSame(
      (await store.list()).map((team) => team.name),
      ['Zebra', 'billing', 'platform'],
      'name order (code-unit order)',
    );
    t.notOk('budget' in ((await store.findById(billing.id)) ?? {}), 'an absent optional field stays absent');
    t.notOk('guardrails' in ((await store.findById(billing.id)) ?? {}), 'so do absent guardrails');
    t.notOk('allowed_tools' in ((await store.findById(billing.id)) ?? {}), 'and absent tools');
  });

  t.test('a taken id or name is refused and changes nothing', async (t) => {
    const open = await makeStore(t);
    const store = await open();
    const other = shared ? await open() : store;
    const team = newTeamRecord({ name: 'research' });
    await store.insert(team);
    await t.rejects(other.insert({ ...team, name: 'another name' }), /already exists/, 'a taken id');
    await t.rejects(other.insert(newTeamRecord({ name: 'research' })), TeamNameTaken, 'a taken name');
    t.strictSame(await store.list(), [team], 'only the first team');
  });

  t.test('update: changed fields, a field given as undefined cleared, a taken name refused', async (t) => {
    const store = await (await makeStore(t))();
    const team = newTeamRecord({
      name: 'alpha',
      rate_limit_rpm: 10,
      budget: { amount_micros: 1, period: 'total' },
    });
    const beta = newTeamRecord({ name: 'beta' });
    await store.insert(team);
    await store.insert(beta);
    const changed = await store.update(team.id, { name: 'gamma', metadata: { owner: 'li' } });
    t.strictSame(
      changed,
      { ...team, name: 'gamma', metadata: { owner: 'li' } },
      'returns the updated record',
    );
    const guarded = await store.update(team.id, { guardrails: ['pii-mask'] });
    t.strictSame(guarded?.guardrails, ['pii-mask'], 'guardrails given');
    const tooled = await store.update(team.id, { allowed_tools: ['search__*'] });
    t.strictSame(tooled?.allowed_tools, ['search__*'], 'tools given');
    const cleared = await store.update(team.id, {
      rate_limit_rpm: undefined,
      budget: undefined,
      guardrails: undefined,
      allowed_tools: undefined,
    });
    t.notOk('rate_limit_rpm' in (cleared ?? {}), 'a cleared field is absent, not undefined or null');
    t.notOk('budget' in (cleared ?? {}));
    t.notOk('guardrails' in (cleared ?? {}));
    t.notOk('allowed_tools' in (cleared ?? {}));
    t.equal((await store.findById(team.id))?.name, 'gamma');
    await t.rejects(store.update(team.id, { name: 'beta' }), TeamNameTaken, "another team's name");
    t.equal((await store.findById(team.id))?.name, 'gamma', 'the refused rename changed nothing');
    t.strictSame(await store.update(team.id, { name: 'gamma' }), cleared, 'its own name is no conflict');
    t.strictSame(
      (await store.list()).map((x) => x.name),
      ['beta', 'gamma'],
      'a renamed team moves in the list',
    );
    t.equal(await store.update('team-missing', { name: 'x' }), undefined, 'an unknown id gives undefined');
  });

  t.test('delete removes the team and returns it; its name is free again', async (t) => {
    const store = await (await makeStore(t))();
    const team = newTeamRecord({ name: 'gone' });
    const kept = newTeamRecord();
    await store.insert(team);
    await store.insert(kept);
    t.strictSame(await store.delete(team.id), team, 'returns the deleted record');
    t.equal(await store.findById(team.id), undefined, 'gone by id');
    t.strictSame(await store.list(), [kept], 'gone from the list');
    t.equal(await store.delete(team.id), undefined, 'deleting again gives undefined');
    await store.insert(newTeamRecord({ name: 'gone' }));
    t.equal((await store.list()).length, 2, 'the name may be used again');
  });

  t.test('teams survive a reopen', async (t) => {
    const open = await makeStore(t);
    const first = await open();
    const teams = [newTeamRecord({ name: 'a' }), newTeamRecord({ name: 'b' }), newTeamRecord({ name: 'c' })];
    for (const team of teams) await first.insert(team);
    const updated = await first.update(teams[1]!.id, {
      max_concurrent: 3,
      rate_limit_tpm: undefined,
      guardrails: ['no-secrets'],
      allowed_tools: ['demo__*'],
    });
    await first.delete(teams[2]!.id);
    await first.close();

    const second = await open();
    t.strictSame(await second.list(), [teams[0], updated], 'inserts, updates and deletes were kept');
    await t.rejects(second.insert(newTeamRecord({ name: 'a' })), TeamNameTaken, 'names stay unique');
  });
}
