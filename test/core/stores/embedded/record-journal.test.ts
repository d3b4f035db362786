/**
 * The journal behind the embedded keys, teams and admin tokens, through the key store: an old keys.json
 * converted at open, a line torn by a crash, compaction in the background while keys are being made
 * (the event loop keeps turning, no key is lost), and pages read from the id index at size.
 */
import t from 'tap';
import { appendFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EmbeddedKeyStore } from '../../../../core/stores/embedded/embedded-key-store';
import { EmbeddedTeamStore } from '../../../../core/stores/embedded/embedded-team-store';
import type { KeyRecord } from '../../../../core/stores/key-store';
import { tempDir } from '../../../helpers/gateway';
import { closingAtEnd, journalRecords } from '../../../helpers/stores';
import { newKeyRecord } from '../key-store.contract';

const NOW = new Date().toISOString();
const lineCount = async (file: string): Promise<number> =>
  (await readFile(file, 'utf8')).split('\n').filter(Boolean).length;

t.test('an old keys.json is converted at open, and kept as keys.json.old', async (t) => {
  const dir = await tempDir(t);
  const old = [newKeyRecord({ description: 'first' }), newKeyRecord({ description: 'second' })];
  await writeFile(join(dir, 'keys.json'), JSON.stringify({ version: 1, keys: old }, null, 2));
  const store = await closingAtEnd(t, () => EmbeddedKeyStore.open(dir))();
  t.strictSame(await store.list(), old, 'every key, in its order');
  t.strictSame(await journalRecords(join(dir, 'keys.jsonl')), old, 'now in the journal');
  t.strictSame(
    (await readdir(dir)).filter((f) => f.startsWith('keys')).sort(),
    ['keys.json.old', 'keys.jsonl'],
    'keys.json is read no more',
  );
  await store.close();

  const again = await closingAtEnd(t, () => EmbeddedKeyStore.open(dir))();
  t.strictSame(await again.list(), old, 'a reopen reads the journal');
});

t.test('a crash between the journal and the rename: the journal wins', async (t) => {
  const dir = await tempDir(t);
  const kept = newKeyRecord({ description: 'in the journal' });
  await writeFile(join(dir, 'keys.jsonl'), `${JSON.stringify({ put: kept })}\n`);
  const stale = { version: 1, keys: [newKeyRecord({ description: 'only in keys.json' })] };
  await writeFile(join(dir, 'keys.json'), JSON.stringify(stale));
  const store = await closingAtEnd(t, () => EmbeddedKeyStore.open(dir))();
  t.strictSame(await store.list(), [kept]);
});

t.test("a compaction's temporary file left by a crash is removed at open", async (t) => {
  const dir = await tempDir(t);
  const kept = newKeyRecord();
  await writeFile(join(dir, 'keys.jsonl'), `${JSON.stringify({ put: kept })}\n`);
  await writeFile(join(dir, 'keys.jsonl.4242.1767225600000.tmp'), '{"put":{"id":"half');
  const store = await closingAtEnd(t, () => EmbeddedKeyStore.open(dir))();
  t.strictSame(await store.list(), [kept], 'the journal is read');
  t.strictSame(
    (await readdir(dir)).filter((f) => f.startsWith('keys')),
    ['keys.jsonl'],
    'the rest is gone',
  );
});

t.test('a line torn by a crash is skipped, and the next change is not swallowed', async (t) => {
  const dir = await tempDir(t);
  const open = closingAtEnd(t, () => EmbeddedKeyStore.open(dir));
  const first = await open();
  const a = newKeyRecord();
  await first.insert(a);
  await first.close();
  const torn = JSON.stringify({ put: newKeyRecord({ description: 'torn' }) });
  await appendFile(join(dir, 'keys.jsonl'), torn.slice(0, torn.length >> 1));

  const second = await open();
  t.strictSame(await second.list(), [a], 'the torn key was never acknowledged');
  const b = newKeyRecord();
  await second.insert(b);
  await second.close();
  t.strictSame(await (await open()).list(), [a, b], 'the key after it is read back');
});

t.test('changes, deletes and the order of keys survive a compaction and a reopen', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'keys.jsonl');
  const open = closingAtEnd(t, () => EmbeddedKeyStore.open(dir, { ratio: 2, minLines: 10 }));
  const store = await open();
  const keys = Array.from({ length: 8 }, (_, i) => newKeyRecord({ description: `key ${i}` }));
  for (const key of keys) await store.insert(key);
  for (let round = 0; round < 3; round++) {
    for (const key of keys.slice(0, 4)) await store.update(key.id, { description: `${key.id} ${round}` });
  }
  await store.delete(keys[5]!.id);
  await store.close();
  const expected = await store.list();
  t.ok((await lineCount(file)) <= 16, `compacted: ${await lineCount(file)} lines for 7 keys, 21 changes`);
  t.strictSame(await journalRecords(file), expected, 'the journal holds what memory held');
  t.strictSame(await (await open()).list(), expected, 'and a reopen reads it, in the same order');
});

t.test('a journal removed under the store: the next change writes every key again', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'keys.jsonl');
  const open = closingAtEnd(t, () => EmbeddedKeyStore.open(dir));
  const store = await open();
  const before = [newKeyRecord(), newKeyRecord()];
  for (const key of before) await store.insert(key);
  await rm(file);
  const after = newKeyRecord();
  await store.insert(after);
  await store.close();
  t.strictSame(await journalRecords(file), [...before, after], 'not only the key made after');
  t.strictSame(await (await open()).list(), [...before, after], 'and a reopen knows them all');
});

t.test('compaction runs in slices: the event loop turns while 20,000 keys are rewritten', async (t) => {
  const dir = await tempDir(t);
  const store = await closingAtEnd(t, () => EmbeddedKeyStore.open(dir, { ratio: 1, minLines: 1 }))();
  const keys = Array.from({ length: 20_000 }, (_, i) => newKeyRecord({ description: `bulk ${i}` }));
  // The inserts share a couple of writes; one more change puts the journal past its keys, and it is
  // compacted right after that change's write: between its answer and the close that waits for it.
  // Written whole in one piece, it would take a handful of turns.
  await Promise.all(keys.map((key) => store.insert(key)));
  await store.update(keys[0]!.id, { description: 'one change more' });
  let turns = 0;
  let counting = true;
  const count = (): void => {
    turns++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  await store.close();
  counting = false;
  t.ok(turns >= 20, `the loop turned ${turns} times while the journal was compacted`);
  t.equal(await lineCount(join(dir, 'keys.jsonl')), 20_000, 'one line per key');
});

t.test('pages at size: by cursor, by team, and a search that finds one key among all', async (t) => {
  const dir = await tempDir(t);
  const open = closingAtEnd(t, () => EmbeddedKeyStore.open(dir));
  let store = await open();
  const keys: KeyRecord[] = Array.from({ length: 5_000 }, (_, i) =>
    newKeyRecord({ description: `service ${i}`, ...(i % 10 === 0 ? { team_id: 'team-a' } : {}) }),
  );
  await Promise.all(keys.map((key) => store.insert(key)));
  const byId = [...keys].sort((a, b) => (a.id < b.id ? -1 : 1));

  const allPages = async (): Promise<string[]> => {
    const ids: string[] = [];
    for (let after: string | undefined; ;) {
      const page = await store.page({ limit: 700, now: NOW, ...(after ? { after } : {}) });
      ids.push(...page.map((k) => k.id));
      if (page.length < 700) return ids;
      after = page.at(-1)!.id;
    }
  };
  const inOrder = byId.map((k) => k.id);
  t.strictSame(await allPages(), inOrder, 'cursor pages list every key once, in id order');
  await store.close();
  store = await open();
  t.strictSame(await allPages(), inOrder, 'and so they do after a reopen');

  const team = await store.page({ limit: 1_000, team_id: 'team-a', now: NOW });
  t.strictSame(
    team.map((k) => k.id),
    byId.filter((k) => k.team_id === 'team-a').map((k) => k.id),
    "a team's keys",
  );
  const target = keys[3_217]!;
  await store.update(target.id, { team_id: 'team-b' });
  t.strictSame(
    (await store.page({ limit: 10, team_id: 'team-b', now: NOW })).map((k) => k.id),
    [target.id],
    'a key moved to another team is listed there',
  );

  const found = await store.page({ limit: 50, q: 'SERVICE 3217', now: NOW });
  t.strictSame(
    found.map((k) => k.description),
    ['service 3217'],
    'the search finds the one key, whatever the case',
  );
  t.strictSame(
    (await store.page({ limit: 5, q: target.id.slice(3).toUpperCase(), now: NOW })).map((k) => k.id),
    [target.id],
    'and by a piece of its id',
  );
});

t.test('teams: an old teams.json is converted too', async (t) => {
  const dir = await tempDir(t);
  const team = { id: 'team-x', name: 'X', allowed_models: [], created_at: NOW };
  await writeFile(join(dir, 'teams.json'), JSON.stringify({ version: 1, teams: [team] }));
  const store = await closingAtEnd(t, () => EmbeddedTeamStore.open(dir))();
  t.match(await store.list(), [team]);
  t.match(await journalRecords(join(dir, 'teams.jsonl')), [team]);
});
