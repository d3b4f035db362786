/**
 * The TaskStore contract against the embedded store always, and against MongoDB when MONGODB_URI is set
 * (a replica set: `watch` is a change stream). Then what only the embedded journal can show: a line torn
 * by a crash mid-append.
 */
import t from 'tap';
import { appendFile, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { EmbeddedTaskStore } from '../../../core/stores/embedded/embedded-task-store';
import { MongoTaskStore } from '../../../core/stores/mongodb/mongo-task-store';
import { tempDir } from '../../helpers/gateway';
import { closingAtEnd, indexedCollections, MONGODB_URI, mongoTestDb, NO_MONGODB } from '../../helpers/stores';
import { newTask, taskStoreContract } from './task-store.contract';

t.test('embedded', (t) => {
  taskStoreContract(t, async (t) => {
    const dir = await tempDir(t);
    return closingAtEnd(t, () => EmbeddedTaskStore.open(dir));
  });
  t.end();
});

t.test('MongoDB', MONGODB_URI ? {} : { skip: NO_MONGODB }, async (t) => {
  const db = await mongoTestDb(t, MONGODB_URI ?? '');
  const nextCollection = indexedCollections(db, 'tasks');
  taskStoreContract(
    t,
    async (t) => {
      const collection = await nextCollection();
      return closingAtEnd(t, () => Promise.resolve(MongoTaskStore.open(db, { collection })));
    },
    'store',
  );
});

t.test(
  'embedded journal: a line torn mid-write is skipped, and the next append is not swallowed',
  async (t) => {
    const dir = await tempDir(t);
    const open = closingAtEnd(t, () => EmbeddedTaskStore.open(dir));
    const first = await open();
    const a = newTask();
    const b = newTask();
    await first.insert(a, 0);
    await first.insert(b, 0);
    const leased = await first.acquire(a.id, { owner: 'p1', until: a.created_at + 60_000 }, a.created_at);
    await first.close();

    // A crash in the middle of an append: half a snapshot, no newline.
    const torn = JSON.stringify(newTask({ id: 'vt-torn' }));
    await appendFile(join(dir, 'tasks.jsonl'), torn.slice(0, torn.length >> 1));

    const second = await open();
    t.strictSame(await second.get(a.id), leased, 'the journal is read up to the tear');
    t.strictSame(await second.get(b.id), b);
    t.equal(
      await second.get('vt-torn'),
      undefined,
      'the torn change was never acknowledged: it is not there',
    );
    const c = newTask();
    await second.insert(c, 0);
    await second.close();

    const third = await open();
    t.strictSame(await third.get(c.id), c, 'the first change after the tear survives the next reopen');
    t.strictSame(await third.get(a.id), leased);
    const lines = (await readFile(join(dir, 'tasks.jsonl'), 'utf8')).split('\n');
    t.ok(
      lines.some(
        (line) => line.startsWith('{') && line.includes(`"id":"${c.id}"`) && !line.includes('vt-torn'),
      ),
      'the append after the tear starts a line of its own',
    );
  },
);

t.test('embedded journal: an append that fails part-way does not swallow the next one', async (t) => {
  const dir = await tempDir(t);
  const open = closingAtEnd(t, () => EmbeddedTaskStore.open(dir));
  const store = await open();
  await store.insert(newTask(), 0);
  // A disk that fills up mid-write: half the line reaches the file, then the append fails. The store's
  // file handle is private; reaching it is the only way to inject the fault.
  const handle = (store as unknown as { handle: FileHandle }).handle;
  const append = handle.appendFile.bind(handle);
  handle.appendFile = async (data: string | Uint8Array) => {
    handle.appendFile = append;
    await append(String(data).slice(0, String(data).length >> 1));
    throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
  };
  const lost = newTask();
  await t.rejects(store.insert(lost, 0), { code: 'ENOSPC' }, 'the failed write is reported');
  const next = newTask();
  await store.insert(next, 0);
  await store.close();

  const reopened = await open();
  t.strictSame(
    await reopened.get(next.id),
    next,
    'the change acknowledged after the failure survives a reopen',
  );
});

t.test('embedded: a change whose write failed is not kept in memory either', async (t) => {
  const dir = await tempDir(t);
  const store = await closingAtEnd(t, () => EmbeddedTaskStore.open(dir))();
  const task = newTask();
  await store.insert(task, 0);
  const handle = (store as unknown as { handle: FileHandle }).handle;
  const append = handle.appendFile.bind(handle);
  const failOnce = (): void => {
    handle.appendFile = () => {
      handle.appendFile = append;
      return Promise.reject(Object.assign(new Error('I/O error'), { code: 'EIO' }));
    };
  };
  failOnce();
  const now = Date.now();
  await t.rejects(store.acquire(task.id, { owner: 'a', until: now + 60_000 }, now), { code: 'EIO' });
  t.equal((await store.get(task.id))?.lease, null, 'no lease left behind by the failed write');
  t.ok(await store.acquire(task.id, { owner: 'b', until: now + 60_000 }, now), 'another poller can take it');

  failOnce();
  const lost = newTask();
  await t.rejects(store.insert(lost, 0), { code: 'EIO' });
  t.equal(await store.get(lost.id), undefined, 'a task whose insert failed is not there');
});

t.test('embedded journal: a task written before history and cost_micros is read whole', async (t) => {
  const dir = await tempDir(t);
  const old = newTask({
    id: 'vt-old',
    status: 'succeeded',
    billed: true,
    finished_at: 1_700_000_009_000,
    updated_at: 1_700_000_010_000,
  });
  const queued = { ...old, id: 'vt-old-queued', status: 'queued', finished_at: null, billed: false };
  // Lines as written before these fields existed.
  const line = (task: object): string =>
    JSON.stringify(task, (k, v: unknown) => (k === 'history' || k === 'cost_micros' ? undefined : v));
  await appendFile(join(dir, 'tasks.jsonl'), `${line(old)}\n${line(queued)}\n`);
  const store = await closingAtEnd(t, () => EmbeddedTaskStore.open(dir))();
  t.match(await store.get('vt-old'), {
    status: 'succeeded',
    cost_micros: null,
    history: [
      { status: 'queued', at: old.created_at },
      { status: 'succeeded', at: 1_700_000_009_000 },
    ],
  });
  t.strictSame((await store.get('vt-old-queued'))?.history, [{ status: 'queued', at: old.created_at }]);
  t.equal((await store.get('vt-old-queued'))?.cost_micros, null);
});

t.test('embedded retention: a task is forgotten once it has needed no work for the retention', async (t) => {
  const dir = await tempDir(t);
  const DAY = 24 * 3_600_000;
  const now = Date.now();
  const key = { key: 'retry-1', body_hash: 'h' };
  const old = { updated_at: now - 2 * DAY, finished_at: now - 2 * DAY };
  const tasks = {
    failedLongAgo: newTask({ ...old, status: 'failed', idempotency: key }),
    billedLongAgo: newTask({ ...old, status: 'succeeded', billed: true }),
    unbilledLongAgo: newTask({ ...old, status: 'succeeded', billed: false }),
    runningLongAgo: newTask({ ...old, status: 'running' }),
    failedToday: newTask({ updated_at: now - 1_000, status: 'failed' }),
  };
  const keep = closingAtEnd(t, () => EmbeddedTaskStore.open(dir));
  const first = await keep();
  for (const task of Object.values(tasks)) await first.insert(task, 0);
  t.equal(first.purge(now), 0, 'without a retention nothing is forgotten');
  await first.close();

  const present = async (store: EmbeddedTaskStore): Promise<string[]> => {
    const names = Object.entries(tasks);
    const found = await Promise.all(names.map(async ([, task]) => (await store.get(task.id)) !== undefined));
    return names.filter((_, i) => found[i]).map(([name]) => name);
  };
  const withRetention = closingAtEnd(t, () => EmbeddedTaskStore.open(dir, { retentionMs: DAY }));
  const second = await withRetention();
  t.strictSame(
    await present(second),
    ['unbilledLongAgo', 'runningLongAgo', 'failedToday'],
    'at open: the finished ones past the retention are gone; work left (billing included) keeps a task',
  );
  const retry = newTask({ status: 'queued', idempotency: key, created_at: now, updated_at: now });
  await second.insert(retry, now - DAY);
  t.ok(await second.get(retry.id), "the forgotten task's idempotency key is free again");

  t.equal(second.purge(now + 2 * DAY), 1, 'later, the task failed today goes the same way');
  t.equal(await second.get(tasks.failedToday.id), undefined);
  t.ok(await second.get(tasks.runningLongAgo.id), 'a task still at work is never forgotten');
});
