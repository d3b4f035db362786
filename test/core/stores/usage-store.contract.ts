/**
 * What every UsageStore promises metering and billing, run against each implementation. `makeStore(t)`
 * gives fresh, empty storage and opens stores over it; opening again is a reopen.
 */
import type { Test } from 'tap';
import type { UsageRecord, UsageStore } from '../../../core/stores/usage-store';
import type { Opener } from '../../helpers/stores';

export type MakeUsageStore = (t: Test) => Promise<Opener<UsageStore>>;

let seq = 0;

export function newRecord(over: Partial<UsageRecord> = {}): UsageRecord {
  return {
    id: `req-${process.pid}-${++seq}`,
    key_id: 'sk-keyAAAAA',
    model: 'model-1',
    upstream: 'main',
    endpoint: '/v1/chat/completions',
    status: 200,
    stream: false,
    prompt_tokens: 10,
    completion_tokens: 20,
    total_tokens: 30,
    estimated: false,
    outcome: 'ok',
    latency_ms: 12,
    created_at: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

/** A video bill, as the poller writes it with recordOnce (the id is the task id). */
const bill = (id: string): UsageRecord =>
  newRecord({ id, endpoint: '/v1/videos', video_seconds: 5, resolution: '720p', cost: 0.5, total_tokens: 0 });

export function usageStoreContract(t: Test, makeStore: MakeUsageStore): void {
  t.test('recordOnce writes a record once per id', async (t) => {
    const store = await (await makeStore(t))();
    const entry = bill('vt-once-1');
    t.equal(await store.recordOnce(entry), true, 'the first call writes');
    t.equal(await store.recordOnce({ ...entry, cost: 99 }), false, 'the second finds it written');
    t.strictSame(
      await store.list({ id: entry.id }),
      [{ ...entry, once: true }],
      'one record, the first, marked once',
    );
  });

  t.test('concurrent recordOnce of one id: exactly one writes', async (t) => {
    const store = await (await makeStore(t))();
    const entry = bill('vt-race');
    const results = await Promise.all(Array.from({ length: 10 }, () => store.recordOnce(entry)));
    t.equal(results.filter(Boolean).length, 1, 'one true, the rest false');
    t.equal((await store.list({ id: entry.id })).length, 1, 'one record');
  });

  t.test('a plain record with the same id does not pre-empt a bill', async (t) => {
    const store = await (await makeStore(t))();
    // A client may send any request id, including a future task id: it must not block that task's bill.
    const plain = newRecord({ id: 'vt-chosen-by-client' });
    store.record(plain);
    await store.flush();
    t.equal(await store.recordOnce(bill(plain.id)), true, 'the bill is written');
    t.equal(await store.recordOnce(bill(plain.id)), false, 'once');
    store.record(newRecord({ id: plain.id }));
    const records = await store.list({ id: plain.id });
    t.equal(records.length, 3, 'plain records are never refused');
    t.equal(records.filter((r) => r.once === true).length, 1, 'one of them is the bill');
  });

  t.test('recordOnce and recorded records survive a reopen', async (t) => {
    const open = await makeStore(t);
    const first = await open();
    t.equal(await first.recordOnce(bill('vt-durable')), true);
    const plain = newRecord();
    first.record(plain); // not flushed: close must write it
    await first.close();

    const second = await open();
    t.equal(await second.recordOnce(bill('vt-durable')), false, 'a bill is remembered across a restart');
    t.strictSame(await second.list({ id: plain.id }), [plain], 'close wrote what was queued');
    t.equal(await second.recordOnce(bill('vt-durable-2')), true, 'another id is still free');
  });

  t.test('list: filters, insertion order, the latest `limit`', async (t) => {
    const store = await (await makeStore(t))();
    const r1 = newRecord({ key_id: 'sk-a' });
    const r2 = newRecord({ key_id: 'sk-b', cache_read_tokens: 4 });
    const r3 = newRecord({ key_id: 'sk-a', stream: true, outcome: 'client_closed', estimated: true });
    const r4 = newRecord({ key_id: null, status: 401 });
    const r5 = newRecord({ key_id: 'sk-a' });
    for (const r of [r1, r2, r3, r4, r5]) store.record(r);
    t.strictSame(
      await store.list(),
      [r1, r2, r3, r4, r5],
      'list writes what is queued first; insertion order',
    );
    t.strictSame(await store.list({ key_id: 'sk-a' }), [r1, r3, r5], 'by key');
    t.strictSame(await store.list({ key_id: 'sk-a', limit: 2 }), [r3, r5], 'the latest two, oldest first');
    t.strictSame(await store.list({ limit: 1 }), [r5], 'the very latest');
    t.strictSame(await store.list({ id: r2.id }), [r2], 'by id');
    t.strictSame(await store.list({ id: r2.id, key_id: 'sk-a' }), [], 'both filters apply');
    t.strictSame(await store.list({ id: 'req-unknown' }), [], 'nothing for an unknown id');
  });

  t.test(
    'bounded at the door: at maxQueued waiting records it stops accepting, and drops nothing',
    async (t) => {
      const store = await (await makeStore(t))();
      const { max } = store.stats();
      t.equal(store.accepting(), true, 'an empty store accepts');
      const waiting = Array.from({ length: max }, () => newRecord({ key_id: 'sk-bound' }));
      for (const r of waiting) store.record(r); // record only queues: none is written yet
      t.equal(store.accepting(), false, `${max} waiting: no new billable work`);
      const underWay = [newRecord({ key_id: 'sk-bound' }), newRecord({ key_id: 'sk-bound' })];
      for (const r of underWay) store.record(r); // calls that were already under way are still recorded
      t.match(store.stats(), { queued: max + 2, max, failing: false });
      await store.flush();
      t.equal(store.accepting(), true, 'accepting again once written');
      t.match(store.stats(), { queued: 0, failedWrites: 0 });
      t.strictSame(await store.list({ key_id: 'sk-bound' }), [...waiting, ...underWay], 'every record, once');
    },
  );

  t.test('record never blocks; flush resolves once written', async (t) => {
    const open = await makeStore(t);
    const store = await open();
    const many = Array.from({ length: 50 }, (_, i) => newRecord({ latency_ms: i }));
    const started = performance.now();
    for (const r of many) store.record(r);
    t.ok(performance.now() - started < 50, 'record only queues');
    await store.flush();
    const reader = await open(); // another instance over the same storage sees it
    t.strictSame(await reader.list({ key_id: 'sk-keyAAAAA' }), many);
  });
}
