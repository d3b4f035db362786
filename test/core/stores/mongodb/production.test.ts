/**
 * What a replica set does to the MongoDB stores in production, beyond the store contracts: a step-down
 * and a write-concern error injected with the server's `failCommand` fail point, a collection dropped
 * under a change stream, two clients (two instances) racing the deploy step, inserts and leases, a lease
 * lost before a submit settles, two pollers whose clocks disagree, and the retention's TTL indexes.
 *
 * Needs MONGODB_URI: a replica set started with `--setParameter enableTestCommands=1` (for the fail
 * points). Skipped, visibly, without it: no MongoDB server can run on the machines this was written on.
 */
import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import type { Db, Document, MongoClient } from 'mongodb';
import pino from 'pino';
import { openStores } from '../../../../core/stores/open-stores';
import { IdempotencyKeyTaken } from '../../../../core/stores/task-store';
import { connectMongo } from '../../../../core/stores/mongodb/connect';
import { MongoTaskStore } from '../../../../core/stores/mongodb/mongo-task-store';
import { MongoUsageStore } from '../../../../core/stores/mongodb/mongo-usage-store';
import { answeringUnavailable } from '../../../../core/stores/mongodb/unavailable';
import {
  buildStoreIndexes,
  checkStoreIndexes,
  KEEP_FOREVER,
  StoreIndexesNotReady,
} from '../../../../core/stores/mongodb/store-indexes';
import type { VideoTask } from '../../../../core/stores/video-task';
import { MONGODB_URI, NO_MONGODB, TEST_USAGE_WRITES } from '../../../helpers/stores';
import { eventually, until } from '../../../helpers/wait';
import { newTask } from '../task-store.contract';
import { newRecord } from '../usage-store.contract';

const silent = pino({ level: 'silent' });

/** One client per simulated instance, each with an app name of its own so a fail point hits only it. */
interface Instance {
  readonly client: MongoClient;
  readonly db: Db;
  readonly appName: string;
}

async function instances(t: Test, count: number, database: string): Promise<Instance[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const appName = `gateway-test-${randomBytes(4).toString('hex')}`;
      const client = await connectMongo(MONGODB_URI!, { appName, serverSelectionTimeoutMS: 5_000 });
      t.teardown(() => client.close());
      return { client, db: client.db(database), appName };
    }),
  );
}

/** A fresh database, dropped at the end (after the instances' clients close: teardowns run in order). */
async function freshDatabase(t: Test, count = 1): Promise<Instance[]> {
  const database = `gateway_prod_${process.pid}_${randomBytes(4).toString('hex')}`;
  const all = await instances(t, count, database);
  t.teardown(() =>
    all[0]!.client
      .db(database)
      .dropDatabase()
      .catch(() => undefined),
  );
  return all;
}

/** Sets the `failCommand` fail point for the instance's client only, turned off at the test's end. */
async function failNext(t: Test, instance: Instance, data: Document, times = 1): Promise<void> {
  const admin = instance.client.db('admin');
  await admin.command({
    configureFailPoint: 'failCommand',
    mode: { times },
    data: { appName: instance.appName, ...data },
  });
  t.teardown(() => admin.command({ configureFailPoint: 'failCommand', mode: 'off' }).then(() => undefined));
}

async function taskStores(t: Test, count = 1): Promise<{ stores: MongoTaskStore[]; all: Instance[] }> {
  const all = await freshDatabase(t, count);
  await buildStoreIndexes(all[0]!.db, KEEP_FOREVER);
  const stores = all.map(({ db }) => MongoTaskStore.open(db, { logger: silent }));
  t.teardown(() => Promise.all(stores.map((s) => s.close())).then(() => undefined));
  return { stores, all };
}

const SKIP = MONGODB_URI ? {} : { skip: NO_MONGODB };

t.test('a step-down during a conditional write: retried by the driver, applied once', SKIP, async (t) => {
  const { stores, all } = await taskStores(t);
  const store = stores[0]!;
  const task = newTask();
  await failNext(t, all[0]!, {
    failCommands: ['insert'],
    errorCode: 189, // PrimarySteppedDown
    errorLabels: ['RetryableWriteError'],
  });
  await store.insert(task, 0);
  const now = Date.now();
  await failNext(t, all[0]!, {
    failCommands: ['findAndModify'],
    errorCode: 91, // ShutdownInProgress
    errorLabels: ['RetryableWriteError'],
  });
  const leased = await store.acquire(task.id, { owner: 'p1', until: now + 30_000 }, now);
  t.equal(leased?.lease?.owner, 'p1', 'the lease is taken through the step-down');
  const polled = await store.update(task.id, 'p1', { polls: 1, status: 'running' }, Date.now());
  t.equal(polled?.polls, 1);
  t.strictSame(
    polled?.history.map((h) => h.status),
    ['queued', 'running'],
    'the change was applied once',
  );
});

t.test('a write-concern error: the write applied, the client told 503, a retry finds it', SKIP, async (t) => {
  const { stores, all } = await taskStores(t);
  const store = answeringUnavailable(stores[0]!);
  const task = newTask();
  await store.insert(task, 0);
  await failNext(t, all[0]!, {
    failCommands: ['findAndModify'],
    writeConcernError: {
      code: 64,
      codeName: 'WriteConcernFailed',
      errmsg: 'waiting for replication timed out',
      errInfo: { wtimeout: true },
    },
  });
  const error = await store.settleSubmit(task.id, { upstream_task_id: 'up-1' }, Date.now()).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.match(error, { status: 503, code: 'store_unavailable' }, 'a 503 store_unavailable');
  t.equal((await store.get(task.id))?.upstream_task_id, 'up-1', 'the primary applied it all the same');
  t.equal(
    await store.settleSubmit(task.id, { upstream_task_id: 'up-1' }, Date.now()),
    undefined,
    'a second settle finds the task settled: the submission reads it back (submit-settle.test.ts)',
  );
});

t.test('a collection dropped under a change stream: the watch goes on', SKIP, async (t) => {
  const { stores, all } = await taskStores(t);
  const seen = new Set<string>();
  const stop = stores[0]!.watch((task) => seen.add(task.id));
  t.teardown(stop);
  const before = newTask();
  await stores[0]!.insert(before, 0);
  await eventually(() => seen.has(before.id), 10_000, 'the first insert');
  await all[0]!.db.collection('tasks').drop(); // an invalidate: the driver only closes the stream
  await buildStoreIndexes(all[0]!.db, KEEP_FOREVER, { tasks: 'tasks' });
  const after = newTask();
  await stores[0]!.insert(after, 0);
  await eventually(() => seen.has(after.id), 15_000, 'an insert after the drop');
  t.pass('reopened after the invalidate, and the insert after it was delivered');
});

t.test('a change stream failing with a fatal code reopens from now', SKIP, async (t) => {
  const { stores, all } = await taskStores(t);
  const seen = new Set<string>();
  const stop = stores[0]!.watch((task) => seen.add(task.id));
  t.teardown(stop);
  await failNext(t, all[0]!, { failCommands: ['getMore'], errorCode: 280 }); // ChangeStreamFatalError
  const first = newTask();
  await stores[0]!.insert(first, 0);
  const later = newTask();
  await eventually(
    () => {
      if (!seen.has(later.id)) void stores[0]!.insert(later, 0).catch(() => undefined);
      return seen.has(later.id);
    },
    15_000,
    'an insert after the reopen',
  );
  t.pass('the stream came back');
});

t.test('the deploy step from two places at once, then a gateway starts', SKIP, async (t) => {
  const [a, b] = await freshDatabase(t, 2);
  const retention = { tasksMs: 30 * 86_400_000, usageMs: 0, auditMs: 0 };
  const storage = {
    driver: 'mongodb' as const,
    uri: MONGODB_URI!,
    database: a!.db.databaseName,
    data_dir: './data',
    usage_queue_max: 100,
    task_retention: retention.tasksMs,
    batch_retention: 0,
    usage_retention: 0,
  };
  const refused = await openStores(storage, silent, { retention: retention.auditMs }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(refused, StoreIndexesNotReady, 'a gateway does not start on a database without its indexes');
  t.match((refused as Error).message, /tasks \(tasks\): index idempotency_unique is missing/);
  await Promise.all([buildStoreIndexes(a!.db, retention), buildStoreIndexes(b!.db, retention)]);
  await checkStoreIndexes(b!.db, retention);
  const stores = await openStores(storage, silent, { retention: retention.auditMs });
  await stores.close();
  t.pass('built twice at once without a conflict, and the gateway starts');
});

t.test('two instances: one task per idempotency key, one lease per task', SKIP, async (t) => {
  const { stores } = await taskStores(t, 2);
  const [a, b] = stores as [MongoTaskStore, MongoTaskStore];
  for (let round = 0; round < 20; round++) {
    const key = { key: `key-${round}`, body_hash: 'h' };
    const outcomes = await Promise.allSettled([
      a.insert(newTask({ idempotency: key }), 0),
      b.insert(newTask({ idempotency: key }), 0),
    ]);
    t.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1, `round ${round}: one insert`);
    const lost = outcomes.find((o) => o.status === 'rejected');
    t.type(lost?.reason, IdempotencyKeyTaken, 'the other is told which task holds the key');
  }
  const task = newTask();
  await a.insert(task, 0);
  const now = Date.now();
  const leases = await Promise.all([
    a.acquire(task.id, { owner: 'a', until: now + 30_000 }, now),
    b.acquire(task.id, { owner: 'b', until: now + 30_000 }, now),
  ]);
  t.equal(leases.filter(Boolean).length, 1, 'one lease');
});

t.test('a submit whose lease ran out and was taken still settles its job', SKIP, async (t) => {
  const { stores } = await taskStores(t, 2);
  const [submitter, poller] = stores as [MongoTaskStore, MongoTaskStore];
  const task = newTask();
  await submitter.insert(task, 0);
  await submitter.acquire(task.id, { owner: 'submit', until: Date.now() + 50 }, Date.now());
  // The lease runs out on the server's clock: the poller asks until it gets it (a refused acquire
  // changes nothing).
  const taken = await until(
    () => poller.acquire(task.id, { owner: 'poller', until: Date.now() + 30_000 }, Date.now()),
    (lease) => lease !== undefined,
    { what: "the poller's lease, once the submit's ran out" },
  );
  t.ok(taken, 'the poller took the lease once it ran out');
  const settled = await submitter.settleSubmit(task.id, { upstream_task_id: 'up-9' }, Date.now());
  t.equal(settled?.upstream_task_id, 'up-9', 'recorded all the same');
});

t.test("two pollers' clocks disagree: leases are judged on the server's", SKIP, async (t) => {
  const { stores } = await taskStores(t, 2);
  const [onTime, ahead] = stores as [MongoTaskStore, MongoTaskStore];
  const HOUR = 3_600_000;
  const task = newTask();
  await onTime.insert(task, 0);
  const now = Date.now();
  t.ok(await onTime.acquire(task.id, { owner: 'on-time', until: now + 30_000 }, now));
  const skewed = now + HOUR;
  t.equal(
    await ahead.acquire(task.id, { owner: 'ahead', until: skewed + 30_000 }, skewed),
    undefined,
    'a poller whose clock runs an hour ahead cannot take a live lease',
  );
  const other = newTask();
  await ahead.insert(other, 0);
  const held = await ahead.acquire(other.id, { owner: 'ahead', until: skewed + 30_000 }, skewed);
  t.ok(held, 'its own lease');
  const until = held!.lease!.until;
  t.ok(until < now + 60_000, "lasts 30 s from the server's present, not an hour longer");
  t.equal(
    await onTime.acquire(other.id, { owner: 'on-time', until: Date.now() + 30_000 }, Date.now()),
    undefined,
    'and is live for the other poller',
  );
});

t.test(
  'retention: finished tasks and usage records carry BSON dates their TTL indexes delete by',
  SKIP,
  async (t) => {
    const [instance] = await freshDatabase(t);
    const db = instance!.db;
    const admin = instance!.client.db('admin');
    const { ttlMonitorSleepSecs } = await admin.command({ getParameter: 1, ttlMonitorSleepSecs: 1 });
    await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
    t.teardown(() => admin.command({ setParameter: 1, ttlMonitorSleepSecs }).then(() => undefined));
    await buildStoreIndexes(db, { tasksMs: 1_000, usageMs: 1_000, auditMs: 0 });
    const tasks = MongoTaskStore.open(db, { logger: silent });
    const usage = MongoUsageStore.open(db, TEST_USAGE_WRITES);
    t.teardown(() => Promise.all([tasks.close(), usage.close()]).then(() => undefined));

    const [done, working] = [newTask(), newTask()];
    for (const task of [done, working]) await tasks.insert(task, 0);
    const now = Date.now();
    for (const task of [done, working])
      await tasks.acquire(task.id, { owner: 'p', until: now + 30_000 }, now);
    await tasks.update(done.id, 'p', { status: 'failed', finished_at: now }, now);
    await tasks.update(working.id, 'p', { status: 'running' }, now);
    const raw = db.collection<{ _id: string; done_on?: Date }>('tasks');
    t.type((await raw.findOne({ _id: done.id }))?.done_on, Date, 'a finished task has its done_on');
    t.equal((await raw.findOne({ _id: working.id }))?.done_on, undefined, 'a working one has none');
    const got: VideoTask | undefined = await tasks.get(done.id);
    t.notOk(got && 'done_on' in got, 'and the store never hands it out');

    await usage.recordOnce(newRecord({ id: 'u-1', created_at: new Date().toISOString() }));
    t.notOk('created_on' in ((await usage.list({ id: 'u-1' }))[0] ?? {}), 'records are listed as recorded');

    const gone = async (): Promise<boolean> =>
      !(await raw.findOne({ _id: done.id })) && (await db.collection('usage').countDocuments()) === 0;
    // The TTL monitor runs every second (set above) on the server's clock: up to 90 s on a slow server.
    await eventually(gone, 90_000, 'the TTL monitor deleting the finished task and the record');
    t.ok(await gone(), 'the TTL monitor deleted the finished task and the record');
    t.ok(await raw.findOne({ _id: working.id }), 'and left the task still at work');
  },
);
