/**
 * What every BatchLineStore promises the batch runner, run against each implementation. `makeStore(t)`
 * gives fresh, empty storage and opens stores over it; opening again is a reopen (a restart, or another
 * instance).
 */
import type { Test } from 'tap';
import type { BatchLineResult, BatchLineStore } from '../../../core/stores/batch-line-store';
import { type Opener } from '../../helpers/stores';

export type MakeBatchLineStore = (t: Test) => Promise<Opener<BatchLineStore>>;

let seq = 0;

/** A fresh batch id, as the gateway makes them. */
export const newBatchId = (): string => `batch_${process.pid}x${++seq}`;

/** A line answered 200, as the runner records it. */
export function newResult(index: number, over: Partial<BatchLineResult> = {}): BatchLineResult {
  return {
    index,
    custom_id: `request-${index}`,
    status_code: 200,
    request_id: `req-${index}-${++seq}`,
    body: { id: `chatcmpl-${index}`, choices: [{ message: { role: 'assistant', content: 'hi' } }] },
    error: null,
    ...over,
  };
}

const indexes = (results: readonly BatchLineResult[]): number[] => results.map((r) => r.index);

export function batchLineStoreContract(t: Test, makeStore: MakeBatchLineStore): void {
  t.test('the first write of a line wins', async (t) => {
    const store = await (await makeStore(t))();
    const batch = newBatchId();
    const first = newResult(0);
    t.equal(await store.put(batch, first), true, 'the first write stores');
    t.equal(await store.put(batch, newResult(0, { status_code: 500 })), false, 'a second is ignored');
    t.strictSame(await store.list(batch), [first], 'the first result is kept');
    t.equal(await store.count(batch), 1);
  });

  t.test('20 puts of one line at once store exactly one', async (t) => {
    const store = await (await makeStore(t))();
    const batch = newBatchId();
    const results = Array.from({ length: 20 }, (_, i) => newResult(7, { request_id: `req-racer-${i}` }));
    const stored = await Promise.all(results.map((result) => store.put(batch, result)));
    t.equal(stored.filter(Boolean).length, 1, 'one put stored it');
    t.strictSame(await store.list(batch), [results[stored.indexOf(true)]], 'and its result is the one kept');
    t.equal(await store.count(batch), 1);
  });

  t.test('list in line order, count, and batches kept apart', async (t) => {
    const store = await (await makeStore(t))();
    const batch = newBatchId();
    const other = newBatchId();
    const results = [5, 0, 3, 1, 4, 2].map((index) => newResult(index));
    await Promise.all(results.map((result) => store.put(batch, result)));
    await store.put(other, newResult(0));
    const listed = await store.list(batch);
    t.strictSame(indexes(listed), [0, 1, 2, 3, 4, 5], 'in line order, whatever the order of the puts');
    t.strictSame(
      listed,
      [...results].sort((a, b) => a.index - b.index),
      'each result whole',
    );
    t.equal(await store.count(batch), 6);
    t.equal(await store.count(other), 1, 'another batch counts its own');
    t.strictSame(await store.list(newBatchId()), [], 'a batch without results lists none');
    t.equal(await store.count(newBatchId()), 0);
  });

  t.test('a result without an answer, and a body with keys a database might treat specially', async (t) => {
    const store = await (await makeStore(t))();
    const batch = newBatchId();
    const failed = newResult(0, {
      status_code: 0,
      body: null,
      error: { code: 'batch_expired', message: 'This line was not executed before the batch expired.' },
    });
    const odd = newResult(1, {
      body: { $schema: 'x', 'a.b': { $ref: '#' }, n: 1.5, big: 2 ** 40, u: 'é🙂' },
    });
    await store.put(batch, failed);
    await store.put(batch, odd);
    t.strictSame(await store.list(batch), [failed, odd], 'both come back exactly');
  });

  t.test('drop forgets the batch, and only it', async (t) => {
    const store = await (await makeStore(t))();
    const batch = newBatchId();
    const other = newBatchId();
    await store.put(batch, newResult(0));
    await store.put(batch, newResult(1));
    await store.put(other, newResult(0));
    await store.drop(batch);
    t.strictSame(await store.list(batch), [], 'no results left');
    t.equal(await store.count(batch), 0);
    t.equal(await store.count(other), 1, 'another batch keeps its own');
    await store.drop(newBatchId());
    t.pass('dropping a batch without results is fine');
    const again = newResult(0, { status_code: 429 });
    t.equal(await store.put(batch, again), true, 'after a drop a line may be stored anew');
    t.strictSame(await store.list(batch), [again]);
  });

  t.test('results survive a reopen, and the first write still wins after it', async (t) => {
    const open = await makeStore(t);
    const first = await open();
    const batch = newBatchId();
    const dropped = newBatchId();
    const results = [0, 1, 2].map((index) => newResult(index));
    for (const result of results) await first.put(batch, result);
    await first.put(dropped, newResult(0));
    await first.drop(dropped);
    await first.close();

    const second = await open();
    t.strictSame(await second.list(batch), results, 'every acknowledged result is there');
    t.equal(await second.count(batch), 3);
    t.equal(await second.put(batch, newResult(1, { status_code: 500 })), false, 'a stored line stays first');
    const late = newResult(3);
    t.equal(await second.put(batch, late), true, 'a new line is stored');
    t.equal(await second.count(dropped), 0, 'a dropped batch stays dropped');
    await second.close();

    const third = await open();
    t.strictSame(
      await third.list(batch),
      [...results, late],
      'a result put after a reopen survives the next',
    );
  });
}
