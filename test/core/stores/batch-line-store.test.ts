/**
 * The BatchLineStore contract against the embedded store always, and against MongoDB when MONGODB_URI
 * is set. Then what only the embedded files can show: a line torn by a crash, a dropped batch's file,
 * and a drop racing puts. (Puts sharing one write: embedded/group-commit.test.ts.)
 */
import t from 'tap';
import { existsSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  BATCH_LINES_DIR,
  EmbeddedBatchLineStore,
} from '../../../core/stores/embedded/embedded-batch-line-store';
import { MongoBatchLineStore } from '../../../core/stores/mongodb/mongo-batch-line-store';
import { tempDir } from '../../helpers/gateway';
import { closingAtEnd, indexedCollections, MONGODB_URI, mongoTestDb, NO_MONGODB } from '../../helpers/stores';
import { batchLineStoreContract, newBatchId, newResult } from './batch-line-store.contract';

t.test('embedded', (t) => {
  batchLineStoreContract(t, async (t) => {
    const dir = await tempDir(t);
    return closingAtEnd(t, () => EmbeddedBatchLineStore.open(dir));
  });
  t.end();
});

t.test('MongoDB', MONGODB_URI ? {} : { skip: NO_MONGODB }, async (t) => {
  const db = await mongoTestDb(t, MONGODB_URI ?? '');
  const nextCollection = indexedCollections(db, 'batch_lines');
  batchLineStoreContract(t, async (t) => {
    const collection = await nextCollection();
    return closingAtEnd(t, () => Promise.resolve(MongoBatchLineStore.open(db, { collection })));
  });
});

t.test(
  'embedded: a line torn mid-write is skipped after a restart, and the next put is not swallowed',
  async (t) => {
    const dir = await tempDir(t);
    const open = closingAtEnd(t, () => EmbeddedBatchLineStore.open(dir));
    const batch = newBatchId();
    const first = await open();
    const results = [newResult(0), newResult(1)];
    for (const result of results) await first.put(batch, result);
    await first.close();

    const torn = JSON.stringify(newResult(2));
    await appendFile(join(dir, BATCH_LINES_DIR, `${batch}.jsonl`), torn.slice(0, torn.length >> 1));

    const second = await open();
    t.strictSame(await second.list(batch), results, 'read up to the tear');
    const line2 = newResult(2, { custom_id: 'after-the-tear' });
    t.equal(await second.put(batch, line2), true, 'the torn line was never stored: it may be now');
    await second.close();

    const third = await open();
    t.strictSame(await third.list(batch), [...results, line2], 'the put after the tear survives a reopen');
  },
);

t.test('embedded: drop removes the batch’s file; a bad batch id is refused', async (t) => {
  const dir = await tempDir(t);
  const store = await closingAtEnd(t, () => EmbeddedBatchLineStore.open(dir))();
  const batch = newBatchId();
  const file = join(dir, BATCH_LINES_DIR, `${batch}.jsonl`);
  t.equal(await store.count(batch), 0);
  t.notOk(existsSync(file), 'a read creates no file');
  await store.put(batch, newResult(0));
  t.ok(existsSync(file), 'the first put does');
  await store.drop(batch);
  t.notOk(existsSync(file), 'gone after the drop');
  await t.rejects(store.put('../escape', newResult(0)), /cannot name a file/);
});

t.test('embedded: a drop racing puts: every call settles, and the batch is left consistent', async (t) => {
  const dir = await tempDir(t);
  const open = closingAtEnd(t, () => EmbeddedBatchLineStore.open(dir));
  const store = await open();
  const batch = newBatchId();
  await store.put(batch, newResult(0));
  const puts = Array.from({ length: 10 }, (_, i) => store.put(batch, newResult(i + 1)));
  await Promise.all([store.drop(batch), ...puts]);
  const left = await store.list(batch);
  t.equal(await store.count(batch), left.length, 'count and list agree');
  t.notOk(
    left.some((r) => r.index === 0),
    'what was stored before the drop is gone',
  );
  await store.close();
  t.strictSame(await (await open()).list(batch), left, 'and a reopen reads the same');
});
