/**
 * What the deploy step and the start-up check make of a collection's indexes, as `listIndexes` lists
 * them. (Against a real server, building and then checking runs in mongodb-production.test.ts.)
 */
import t from 'tap';
import type { Document } from 'mongodb';
import type { StoreName } from '../../../../core/stores/mongodb/connect';
import {
  KEEP_FOREVER,
  planIndexes,
  StoreIndexesNotReady,
  storeIndexes,
  type StoreRetention,
} from '../../../../core/stores/mongodb/store-indexes';

const DAY_MS = 24 * 3_600_000;
const THIRTY_DAYS: StoreRetention = { tasksMs: 30 * DAY_MS, usageMs: 0, auditMs: 0 };

/** The collection as the server lists it once the deploy step built `retention`'s indexes. */
const built = (store: StoreName, retention: StoreRetention): Document[] => [
  { v: 2, key: { _id: 1 }, name: '_id_' },
  ...storeIndexes(store, retention).map((index) => ({ v: 2, ...index })),
];

t.test('a new collection: every index is to be created, and each is named', (t) => {
  const plan = planIndexes('tasks', 'tasks', [], THIRTY_DAYS);
  t.strictSame(
    plan.create.map((index) => index.name),
    ['idempotency_unique', 'status_billed_next_poll', 'created_at_id', 'status_created_at_id', 'done_on_ttl'],
  );
  t.match(
    plan.problems[0],
    /tasks \(tasks\): index idempotency_unique is missing \(\{"key_id":1,"idempotency.key":1\} unique partial/,
  );
  t.strictSame(plan.conflicts, []);
  t.end();
});

t.test('built as needed: nothing to do, whatever other indexes an operator added', (t) => {
  const extra = { v: 2, key: { model: 1 }, name: 'by_model' };
  const stores = [
    'tasks',
    'usage',
    'keys',
    'teams',
    'files',
    'file_contents',
    'file_chunks',
    'batch_lines',
  ] as const;
  for (const store of stores) {
    const plan = planIndexes(store, store, [...built(store, THIRTY_DAYS), extra], THIRTY_DAYS);
    t.strictSame(plan.problems, [], store);
  }
  t.end();
});

t.test('retention: a changed period is changed in place, one turned off drops its TTL index', (t) => {
  const week: StoreRetention = { tasksMs: 7 * DAY_MS, usageMs: 90 * DAY_MS, auditMs: 0 };
  const longer = planIndexes('tasks', 'tasks', built('tasks', week), THIRTY_DAYS);
  t.strictSame(longer.retime, [{ name: 'done_on_ttl', seconds: 30 * 24 * 3600 }]);
  t.strictSame(longer.create, [], 'no rebuild');
  t.match(longer.problems, [/done_on_ttl deletes after 604800 s, storage.task_retention asks 2592000 s/]);

  const off = planIndexes('usage', 'usage', built('usage', week), KEEP_FOREVER);
  t.strictSame(off.drop, ['created_on_ttl']);
  t.match(off.problems, [/created_on_ttl deletes data, and storage.usage_retention asks to keep it/]);

  const on = planIndexes('usage', 'usage', built('usage', KEEP_FOREVER), week);
  t.match(on.create, [
    { name: 'created_on_ttl', key: { created_on: 1 }, expireAfterSeconds: 90 * 24 * 3600 },
  ]);
  t.end();
});

t.test('a definition that changed is left to an operator, named', (t) => {
  const notUnique = built('keys', KEEP_FOREVER).map((index) =>
    index['name'] === 'hash_unique' ? { v: 2, key: { hash: 1 }, name: 'hash_unique' } : index,
  );
  const plan = planIndexes('keys', 'keys', notUnique, KEEP_FOREVER);
  t.strictSame(plan.create, [], 'not built over the old one');
  t.match(plan.conflicts, [
    /keys \(keys\): index hash_unique is \{"hash":1\}, the gateway needs \{"hash":1\} unique; drop it/,
  ]);

  const renamed = built('keys', KEEP_FOREVER).map((index) =>
    index['name'] === 'id_unique' ? { ...index, name: 'id_1' } : index,
  );
  t.match(planIndexes('keys', 'keys', renamed, KEEP_FOREVER).conflicts, [
    /index id_1 has the keys of id_unique .* under another name/,
  ]);
  t.end();
});

t.test('the start-up error lists every problem and gives the deploy command', (t) => {
  const problems = planIndexes('tasks', 'tasks', [], KEEP_FOREVER).problems;
  const error = new StoreIndexesNotReady(problems);
  t.match(error.message, /idempotency_unique is missing/);
  t.match(error.message, /status_created_at_id is missing/);
  t.match(error.message, /npm run stores -- indexes/);
  t.end();
});

t.test(
  'batch files: a fixed TTL on each file’s own expiry; the chunks’ index under the driver’s name',
  (t) => {
    for (const retention of [KEEP_FOREVER, THIRTY_DAYS]) {
      t.match(
        storeIndexes('files', retention).find((index) => index.name === 'expires_on_ttl'),
        { key: { expires_on: 1 }, expireAfterSeconds: 0 },
        'the same whatever the retentions',
      );
    }
    const ttlChanged = built('files', KEEP_FOREVER).map((index) =>
      index['name'] === 'expires_on_ttl' ? { ...index, expireAfterSeconds: 3600 } : index,
    );
    const plan = planIndexes('files', 'files', ttlChanged, KEEP_FOREVER);
    t.strictSame(plan.retime, [{ name: 'expires_on_ttl', seconds: 0 }]);
    t.match(plan.problems, [/expires_on_ttl deletes after 3600 s, the gateway asks 0 s/]);

    // A bucket the driver uploaded into first (`mongofiles`, say) has the chunks' index already: as needed.
    const byDriver = [
      { v: 2, key: { _id: 1 }, name: '_id_' },
      { v: 2, key: { files_id: 1, n: 1 }, name: 'files_id_1_n_1', unique: true },
    ];
    t.strictSame(planIndexes('file_chunks', 'file_contents.chunks', byDriver, KEEP_FOREVER).problems, []);
    t.match(planIndexes('batch_lines', 'batch_lines', [], KEEP_FOREVER).create, [
      { key: { batch_id: 1, index: 1 }, unique: true },
    ]);
    t.end();
  },
);
