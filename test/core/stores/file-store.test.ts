/**
 * The FileStore contract against the embedded store always, and against MongoDB (GridFS for the content)
 * when MONGODB_URI is set. Then what only the embedded files can show: a journal line torn by a crash,
 * content left on disk by one, and the purge of expired content.
 */
import t from 'tap';
import { existsSync } from 'node:fs';
import { appendFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  EmbeddedFileStore,
  FILES_DIR,
  FILES_JOURNAL,
} from '../../../core/stores/embedded/embedded-file-store';
import { MongoFileStore } from '../../../core/stores/mongodb/mongo-file-store';
import { buildStoreIndexes, KEEP_FOREVER } from '../../../core/stores/mongodb/store-indexes';
import { tempDir } from '../../helpers/gateway';
import { closingAtEnd, MONGODB_URI, mongoTestDb, NO_MONGODB } from '../../helpers/stores';
import { contentOf, DAY, fileStoreContract, newFile, T0 } from './file-store.contract';

t.test('embedded', (t) => {
  fileStoreContract(t, async (t) => {
    const dir = await tempDir(t);
    return closingAtEnd(t, () => EmbeddedFileStore.open(dir));
  });
  t.end();
});

t.test('MongoDB', MONGODB_URI ? {} : { skip: NO_MONGODB }, async (t) => {
  const db = await mongoTestDb(t, MONGODB_URI ?? '');
  let n = 0;
  fileStoreContract(t, async (t) => {
    // The metadata collection and the content's bucket, each test its own, indexed as the deploy step does.
    const collection = `files_${++n}`;
    const bucket = `contents_${n}`;
    await buildStoreIndexes(db, KEEP_FOREVER, {
      files: collection,
      file_contents: `${bucket}.files`,
      file_chunks: `${bucket}.chunks`,
    });
    return closingAtEnd(t, () => Promise.resolve(MongoFileStore.open(db, { collection, bucket })));
  });
});

/** The names in the data directory's content folder. */
const contentFiles = async (dir: string): Promise<string[]> => (await readdir(join(dir, FILES_DIR))).sort();

t.test(
  'embedded journal: a line torn mid-write is skipped, and the next append is not swallowed',
  async (t) => {
    const dir = await tempDir(t);
    const open = closingAtEnd(t, () => EmbeddedFileStore.open(dir));
    const first = await open();
    const a = newFile();
    await first.put(a, contentOf(a));
    await first.close();

    // A crash in the middle of an append: half a line, no newline.
    const torn = JSON.stringify({ put: newFile({ id: 'file-torn' }) });
    await appendFile(join(dir, FILES_JOURNAL), torn.slice(0, torn.length >> 1));

    const second = await open();
    t.strictSame(await second.get(a.id, T0), a, 'the journal is read up to the tear');
    t.equal(await second.get('file-torn', T0), undefined, 'the torn put was never acknowledged');
    const b = newFile();
    await second.put(b, contentOf(b));
    await second.close();

    const third = await open();
    t.strictSame(await third.get(b.id, T0), b, 'the first put after the tear survives the next reopen');
    t.same(await third.content(b.id, T0), contentOf(b));
  },
);

t.test('embedded: the purge removes expired content from disk, hourly and at open', async (t) => {
  const dir = await tempDir(t);
  const open = closingAtEnd(t, () => EmbeddedFileStore.open(dir));
  const store = await open();
  const expiring = newFile({ expires_at: T0 + DAY });
  const kept = newFile();
  await store.put(expiring, contentOf(expiring));
  await store.put(kept, contentOf(kept));
  t.strictSame(await contentFiles(dir), [expiring.id, kept.id].sort(), 'each file’s content on disk');

  t.equal(await store.purge(T0 + DAY - 1), 0, 'nothing has expired yet');
  t.equal(await store.purge(T0 + DAY), 1, 'one file expired');
  t.strictSame(await contentFiles(dir), [kept.id], 'its content is gone from disk');
  t.equal(await store.get(expiring.id, T0), undefined, 'and the file from every read');

  // Expired by the real clock when the store opens again: purged before the store answers.
  const past = newFile({ created_at: Date.now() - DAY, expires_at: Date.now() - 1 });
  await store.put(past, contentOf(past));
  await store.close();
  const reopened = await open();
  t.strictSame(await contentFiles(dir), [kept.id], 'content expired while closed is removed at open');
  t.equal(await reopened.get(past.id, 0), undefined, 'and the file is forgotten');
  t.strictSame(await reopened.get(kept.id, T0), kept);
});

t.test(
  'embedded: content no journal line owns (a put cut short by a crash) is removed at open',
  async (t) => {
    const dir = await tempDir(t);
    const open = closingAtEnd(t, () => EmbeddedFileStore.open(dir));
    const kept = newFile();
    const first = await open();
    await first.put(kept, contentOf(kept));
    await first.close();
    await writeFile(join(dir, FILES_DIR, 'file-never-journaled'), 'half an upload');
    await writeFile(join(dir, FILES_DIR, `${kept.id}.123.456.tmp`), 'a temporary file');

    const store = await open();
    t.notOk(existsSync(join(dir, FILES_DIR, 'file-never-journaled')), 'the orphan is gone');
    t.strictSame(await contentFiles(dir), [kept.id], 'the stored file’s content alone is left');
    t.same(await store.content(kept.id, T0), contentOf(kept));
  },
);

t.test('embedded: a put whose journal write fails leaves nothing, and readiness says so', async (t) => {
  const dir = await tempDir(t);
  const store = await closingAtEnd(t, () => EmbeddedFileStore.open(dir))();
  // A disk that fails the append. The journal is private; reaching it is the only way to inject the fault.
  const log = (store as unknown as { log: { append: (text: string, durable: boolean) => Promise<void> } })
    .log;
  const append = log.append.bind(log);
  log.append = () => {
    log.append = append;
    return Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
  };
  const lost = newFile();
  await t.rejects(store.put(lost, contentOf(lost)), { code: 'ENOSPC' }, 'the failed put is reported');
  t.equal(await store.get(lost.id, T0), undefined, 'the file is not there');
  t.strictSame(await contentFiles(dir), [], 'nor its content');
  t.match(store.health(), { ok: false, reason: /files\.jsonl.*no space left/ }, 'readiness fails');

  const next = newFile();
  await store.put(next, contentOf(next));
  t.strictSame(store.health(), { ok: true }, 'and recovers with the next write');
  await t.rejects(store.put(newFile({ id: '../escape' }), Buffer.from('x')), /cannot name a file/);
});
