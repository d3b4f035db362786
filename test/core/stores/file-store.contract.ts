/**
 * What every FileStore promises the files and batches endpoints, run against each implementation.
 * `makeStore(t)` gives fresh, empty storage and opens stores over it; opening again is a reopen (a
 * restart). Times are explicit: every read is asked at a `now` the test gives.
 */
import type { Test } from 'tap';
import type { FileStore, StoredFile } from '../../../core/stores/file-store';
import { type Opener } from '../../helpers/stores';

export type MakeFileStore = (t: Test) => Promise<Opener<FileStore>>;

/**
 * Far ahead of the real clock: a store may purge expired files by its own clock (the embedded one at
 * open), which must not reach the files of these tests before their explicit `now` does.
 */
export const T0 = 4_000_000_000_000;
export const DAY = 24 * 3_600_000;
let seq = 0;

/** A file as the upload endpoint stores it: a client's batch input, kept until deleted. */
export function newFile(over: Partial<StoredFile> = {}): StoredFile {
  return {
    id: `file-${process.pid}x${++seq}`,
    key_id: 'sk-keyAAAAA',
    filename: 'requests.jsonl',
    purpose: 'batch',
    bytes: 120,
    lines: 2,
    created_at: T0,
    expires_at: null,
    ...over,
  };
}

/** Two request lines naming the file, so each file's content is its own. */
export const contentOf = (file: StoredFile): Buffer =>
  Buffer.from(`{"custom_id":"${file.id}-1","body":{}}\n{"custom_id":"${file.id}-2","body":{}}\n`);

const ids = (files: readonly StoredFile[]): string[] => files.map((f) => f.id);

export function fileStoreContract(t: Test, makeStore: MakeFileStore): void {
  t.test('put, then get and content', async (t) => {
    const store = await (await makeStore(t))();
    const file = newFile({ team_id: 'team-1' });
    await store.put(file, contentOf(file));
    t.strictSame(await store.get(file.id, T0), file, 'the file comes back as stored');
    t.same(await store.content(file.id, T0), contentOf(file), 'and its content');
    t.equal(await store.get('file-unknown', T0), undefined, 'an unknown id is undefined');
    t.equal(await store.content('file-unknown', T0), undefined, 'and has no content');

    // Several GridFS chunks' worth, every byte value, and nothing at all.
    const big = Buffer.alloc(700 * 1024, 0);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31 + 7) % 256;
    const large = newFile({ purpose: 'batch_output', bytes: big.length, key_id: null });
    await store.put(large, big);
    t.ok((await store.content(large.id, T0))?.equals(big), 'a large binary content comes back whole');
    const empty = newFile({ bytes: 0, lines: 0 });
    await store.put(empty, Buffer.alloc(0));
    t.equal((await store.content(empty.id, T0))?.length, 0, 'an empty content is empty, not missing');
  });

  t.test('a taken id is refused, and the first file is untouched', async (t) => {
    const store = await (await makeStore(t))();
    const file = newFile();
    await store.put(file, contentOf(file));
    await t.rejects(store.put({ ...file, filename: 'other.jsonl' }, Buffer.from('other\n')), /exists/);
    t.strictSame(await store.get(file.id, T0), file);
    t.same(await store.content(file.id, T0), contentOf(file), 'its content is still its own');

    const racer = newFile();
    const contents = [Buffer.from('first\n'), Buffer.from('second\n')];
    const outcomes = await Promise.allSettled(contents.map((c) => store.put(racer, c)));
    const won = outcomes.findIndex((o) => o.status === 'fulfilled');
    t.equal(
      outcomes.filter((o) => o.status === 'fulfilled').length,
      1,
      'of two puts of one id at once, one stores',
    );
    t.same(await store.content(racer.id, T0), contents[won], 'and the content is the winner’s');
  });

  t.test('page: the key’s files, newest first, by purpose, after a given file', async (t) => {
    const store = await (await makeStore(t))();
    const mine = [
      newFile({ id: 'file-a1', created_at: T0 + 1 }),
      newFile({ id: 'file-a2', created_at: T0 + 2, purpose: 'batch_output' }),
      newFile({ id: 'file-a3x', created_at: T0 + 3 }),
      newFile({ id: 'file-a3y', created_at: T0 + 3, purpose: 'batch_output' }), // same time: by id
      newFile({ id: 'file-a4', created_at: T0 + 4 }),
    ];
    const others = [
      newFile({ id: 'file-b1', key_id: 'sk-keyBBBBB', created_at: T0 + 5 }),
      newFile({ id: 'file-n1', key_id: null, created_at: T0 + 6 }),
    ];
    for (const file of [...others, ...mine].reverse()) await store.put(file, contentOf(file));
    const page = (over: { limit?: number; after?: string; purpose?: 'batch' | 'batch_output' } = {}) =>
      store.page({ key_id: 'sk-keyAAAAA', limit: 10, ...over }, T0 + 10);

    t.strictSame(await page(), [...mine].reverse(), 'only the key’s own files, newest first, whole');
    t.strictSame(
      ids(await page({ limit: 2 })),
      ['file-a4', 'file-a3y'],
      'at most `limit`; at the same time the greater id first',
    );
    t.strictSame(ids(await page({ limit: 2, after: 'file-a3y' })), ['file-a3x', 'file-a2']);
    t.strictSame(ids(await page({ limit: 2, after: 'file-a2' })), ['file-a1']);
    t.strictSame(ids(await page({ after: 'file-a1' })), [], 'nothing after the last one');
    t.strictSame(ids(await page({ purpose: 'batch' })), ['file-a4', 'file-a3x', 'file-a1']);
    t.strictSame(ids(await page({ purpose: 'batch_output', after: 'file-a3y' })), ['file-a2']);
    t.strictSame(ids(await page({ limit: 0 })), [], 'a limit of 0 is an empty page');
    t.strictSame(
      ids(await store.page({ key_id: null, limit: 10 }, T0 + 10)),
      ['file-n1'],
      'files without a key are listed for no key only',
    );
    t.strictSame(ids(await page({ after: 'file-b1' })), [], 'after another key’s file: an empty page');
    t.strictSame(ids(await page({ after: 'file-unknown' })), [], 'after an unknown file: an empty page');
  });

  t.test('delete: the file and its content are gone', async (t) => {
    const store = await (await makeStore(t))();
    const file = newFile();
    const kept = newFile();
    await store.put(file, contentOf(file));
    await store.put(kept, contentOf(kept));
    t.equal(await store.delete(file.id, T0), true, 'a stored file is deleted');
    t.equal(await store.get(file.id, T0), undefined);
    t.equal(await store.content(file.id, T0), undefined, 'its content too');
    t.strictSame(ids(await store.page({ key_id: file.key_id, limit: 10 }, T0)), [kept.id], 'not listed');
    t.equal(await store.delete(file.id, T0), false, 'a second delete finds nothing');
    t.equal(await store.delete('file-unknown', T0), false);
    t.strictSame(await store.get(kept.id, T0), kept, 'the other file is untouched');
    const twice = await Promise.all([store.delete(kept.id, T0), store.delete(kept.id, T0)]);
    t.strictSame(twice.sort(), [false, true], 'of two deletes at once, one deletes');
  });

  t.test('expiry: gone from every read at `expires_at`', async (t) => {
    const store = await (await makeStore(t))();
    const expiring = newFile({ purpose: 'batch_output', expires_at: T0 + 30 * DAY });
    const kept = newFile({ purpose: 'batch_output' });
    await store.put(expiring, contentOf(expiring));
    await store.put(kept, contentOf(kept));
    const before = T0 + 30 * DAY - 1;
    const at = T0 + 30 * DAY;
    t.strictSame(await store.get(expiring.id, before), expiring, 'there until just before');
    t.same(await store.content(expiring.id, before), contentOf(expiring));
    t.strictSame(
      ids(await store.page({ key_id: kept.key_id, limit: 10 }, before)).sort(),
      [expiring.id, kept.id].sort(),
    );
    t.equal(await store.get(expiring.id, at), undefined, 'gone at `expires_at`');
    t.equal(await store.content(expiring.id, at), undefined);
    t.strictSame(ids(await store.page({ key_id: kept.key_id, limit: 10 }, at)), [kept.id], 'not listed');
    t.strictSame(
      ids(await store.page({ key_id: kept.key_id, limit: 10, after: expiring.id }, at)),
      [],
      'an expired file is no place to page from',
    );
    t.equal(await store.delete(expiring.id, at), false, 'nothing to delete');
    t.strictSame(await store.get(kept.id, T0 + 3650 * DAY), kept, 'a file without expiry is kept');
  });

  t.test('every acknowledged file survives a reopen, and a deleted one stays deleted', async (t) => {
    const open = await makeStore(t);
    const first = await open();
    const a = newFile({ created_at: T0 + 1 });
    const b = newFile({ created_at: T0 + 2, purpose: 'batch_output', expires_at: T0 + DAY });
    const deleted = newFile({ created_at: T0 + 3 });
    for (const file of [a, b, deleted]) await first.put(file, contentOf(file));
    await first.delete(deleted.id, T0);
    await first.close();

    const second = await open();
    t.strictSame(await second.get(a.id, T0), a);
    t.strictSame(await second.get(b.id, T0), b);
    t.same(await second.content(b.id, T0), contentOf(b), 'content too');
    t.equal(await second.get(deleted.id, T0), undefined, 'the deleted file is not back');
    t.strictSame(ids(await second.page({ key_id: a.key_id, limit: 10 }, T0)), [b.id, a.id]);
    await t.rejects(second.put(a, contentOf(a)), /exists/, 'ids are still taken');
    const c = newFile({ created_at: T0 + 4 });
    await second.put(c, contentOf(c));
    await second.close();

    const third = await open();
    t.same(await third.content(c.id, T0), contentOf(c), 'a file put after a reopen survives the next one');
    t.strictSame(ids(await third.page({ key_id: a.key_id, limit: 10 }, T0)), [c.id, b.id, a.id]);
  });
}
