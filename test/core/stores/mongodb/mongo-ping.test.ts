/**
 * Readiness of the MongoDB stores: a ping with a short limit. Against a port nothing listens on (a
 * real refused connection, which runs anywhere) it fails with the driver's reason or, while the driver
 * is still selecting a server, with the limit. Against MONGODB_URI it answers, and a gateway on MongoDB
 * is ready; skipped, visibly, without it (no MongoDB server runs on the machines this was written on).
 */
import 'reflect-metadata';
import '../../../helpers/load-plugins';
import t from 'tap';
import { MongoClient } from 'mongodb';
import { buildConfig } from '../../../../config/load';
import { startGateway } from '../../../../core/boot/gateway';
import { MongoPing } from '../../../../core/stores/mongodb/mongo-ping';
import { buildStoreIndexes, KEEP_FOREVER } from '../../../../core/stores/mongodb/store-indexes';
import { tempDir, testConfig } from '../../../helpers/gateway';
import { REFUSED_PORT } from '../../../helpers/ports';
import { MONGODB_URI, mongoTestDb, NO_MONGODB } from '../../../helpers/stores';

const SKIP = MONGODB_URI ? {} : { skip: NO_MONGODB };

t.test('no server there: failing, with the driver’s reason or the limit, and fast', async (t) => {
  const port = REFUSED_PORT; // nothing listens there
  const quick = new MongoClient(`mongodb://127.0.0.1:${port}/?directConnection=true`, {
    serverSelectionTimeoutMS: 200,
  });
  t.teardown(() => quick.close());
  // The driver gives up after 200 ms; the ping's own limit is far beyond, even for a stalled machine.
  const limitMs = 5_000;
  const started = Date.now();
  t.match(await new MongoPing(quick.db('gateway'), limitMs).health(), {
    ok: false,
    reason: /^MongoDB: ping failed \(.*ECONNREFUSED/,
  });
  t.ok(Date.now() - started < limitMs, 'answered when the driver gave up, not at the limit');

  const patient = new MongoClient(`mongodb://127.0.0.1:${port}/?directConnection=true`, {
    serverSelectionTimeoutMS: 10_000,
  });
  t.teardown(() => patient.close());
  const ping = new MongoPing(patient.db('gateway'), 150);
  const asks = await Promise.all([ping.health(), ping.health(), ping.health()]);
  for (const health of asks)
    t.match(health, { ok: false, reason: 'MongoDB: no answer to a ping within 150 ms' });
});

t.test('MONGODB_URI: the ping answers', SKIP, async (t) => {
  const db = await mongoTestDb(t, MONGODB_URI ?? '');
  t.strictSame(await new MongoPing(db).health(), { ok: true });
});

t.test('MONGODB_URI: a gateway on MongoDB is ready', SKIP, async (t) => {
  const db = await mongoTestDb(t, MONGODB_URI ?? '');
  await buildStoreIndexes(db, { tasksMs: 30 * 24 * 3_600_000, usageMs: KEEP_FOREVER.usageMs, auditMs: 0 });
  const doc = testConfig('http://127.0.0.1:9', await tempDir(t));
  doc.storage = {
    driver: 'mongodb',
    uri: MONGODB_URI,
    database: db.databaseName,
    data_dir: await tempDir(t),
  };
  const gateway = await startGateway(buildConfig(doc, {}), { env: { GATEWAY_KEY_SECRET: 'k'.repeat(32) } });
  t.teardown(() => gateway.close(1_000));
  t.equal((await fetch(`${gateway.url}/readyz`)).status, 200);
  t.match((await gateway.readiness.view()).checks, { stores: { state: 'ok' } });
});
