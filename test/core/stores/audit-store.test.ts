/**
 * The AuditStore contract against the embedded store always, and against MongoDB when MONGODB_URI is set.
 * Then the embedded retention: the prune drops what is past it and keeps the rest, in every file.
 */
import t from 'tap';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EmbeddedAuditStore } from '../../../core/stores/embedded/embedded-audit-store';
import { MongoAuditStore } from '../../../core/stores/mongodb/mongo-audit-store';
import { storeIndexes } from '../../../core/stores/mongodb/store-indexes';
import { buildConfig } from '../../../config/load';
import { tempDir } from '../../helpers/gateway';
import { closingAtEnd, indexedCollections, MONGODB_URI, mongoTestDb, NO_MONGODB } from '../../helpers/stores';
import { auditStoreContract, newAuditRecord } from './audit-store.contract';

const DAY_MS = 86_400_000;

t.test('embedded', (t) => {
  auditStoreContract(t, async (t) => {
    const dir = await tempDir(t);
    return closingAtEnd(t, () => EmbeddedAuditStore.open(dir, { retentionMs: 0 }));
  });
  t.end();
});

t.test('MongoDB', MONGODB_URI ? {} : { skip: NO_MONGODB }, async (t) => {
  const db = await mongoTestDb(t, MONGODB_URI ?? '');
  const nextCollection = indexedCollections(db, 'audit');
  auditStoreContract(t, async (t) => {
    const collection = await nextCollection();
    return closingAtEnd(t, () => Promise.resolve(MongoAuditStore.open(db, { collection })));
  });
});

t.test('MongoDB retention is a TTL index on the record time, as audit.retention sets it', (t) => {
  const ttl = (auditMs: number) =>
    storeIndexes('audit', { tasksMs: 0, usageMs: 0, auditMs }).find((index) => index.name === 'on_ttl');
  t.match(ttl(365 * DAY_MS), { key: { on: 1 }, expireAfterSeconds: 365 * 86_400 });
  t.equal(ttl(0), undefined, '0 keeps every record: no TTL index');
  t.end();
});

t.test('embedded retention: the prune drops records past it, in rotated and current files', async (t) => {
  const dir = await tempDir(t);
  // Small files: a few records each, so the log spans rotated files and the current one.
  const open = closingAtEnd(t, () =>
    EmbeddedAuditStore.open(dir, { retentionMs: 10 * 60_000, rotateBytes: 600 }),
  );
  const store = await open();
  const records = Array.from({ length: 12 }, (_, i) => newAuditRecord(i * 2)); // minutes 0, 2, …, 22
  for (const record of records) await store.append(record);
  t.ok((await readdir(dir)).filter((f) => f.startsWith('audit-')).length > 1, 'several rotated files');

  const now = Date.parse(records[11]!.at); // minute 22: the retention keeps minutes 12 and later
  t.equal(await store.prune(now), 6, 'the six records older than ten minutes are dropped');
  const kept = records.slice(6).reverse();
  t.strictSame(await store.page({ limit: 100 }), kept, 'the rest are kept, in order');
  t.equal(await store.prune(now), 0, 'a second prune finds nothing');

  const files = (await readdir(dir)).filter((f) => f.startsWith('audit'));
  const text = (await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')))).join('');
  for (const record of records.slice(0, 6))
    t.notMatch(text, record.id, `record at ${record.at} gone from disk`);

  await store.append(newAuditRecord(30));
  await store.close();
  t.strictSame(
    await (await open()).page({ limit: 100 }),
    [],
    'opening prunes by the clock: every record of January 2026 is past ten minutes now',
  );
});

t.test('audit.retention: 365 days unless set, 0 keeps every record', (t) => {
  const retention = (audit?: unknown) =>
    buildConfig({ pipeline: ['auth'], ...(audit !== undefined ? { audit } : {}) }).audit.retention;
  t.equal(retention(), 365 * DAY_MS);
  t.equal(retention({ retention: '90d' }), 90 * DAY_MS);
  t.equal(retention({ retention: 0 }), 0);
  t.throws(() => retention({ retention: 'forever' }), /audit\.retention/);
  t.throws(() => retention({ keep: '1d' }), /audit/);
  t.end();
});
