/**
 * The embedded usage store's checkpoint: a restart reads it and the lines written after it, and answers
 * every summary, lastUsed and recordOnce as a store that reads every file does (the reference here: a
 * store opened with the checkpoint deleted). A checkpoint that does not fit the files is set aside for a
 * full read; lines it counted that never reached the disk are counted once and written.
 *
 * "The checkpoint lags the files" is made by putting back an earlier checkpoint after more records were
 * written, as after a stop without a clean close.
 */
import t from 'tap';
import { appendFile, mkdir, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { EmbeddedUsageStore } from '../../../../core/stores/embedded/embedded-usage-store';
import {
  CHECKPOINT_FILE,
  readCheckpoint,
  writeCheckpoint,
} from '../../../../core/stores/embedded/usage-checkpoint';
import { usageLine } from '../../../../core/stores/embedded/usage-line';
import { UsageRollup } from '../../../../core/stores/usage-rollup';
import type { UsageRecord, UsageSummaryQuery, UsageSummaryRow } from '../../../../core/stores/usage-store';
import { tempDir, type Teardown } from '../../../helpers/gateway';
import { capturingLogger, TEST_USAGE_WRITES, type LogLine } from '../../../helpers/stores';
import { eventually } from '../../../helpers/wait';
import { newRecord } from '../usage-store.contract';

const KEYS = ['sk-a', 'sk-b', 'sk-c', 'sk-d'];
const DAY_ONE = Date.parse('2026-03-01T00:00:00.000Z');

/** Summaries that read each level: hourly by key, by day, all time, a range off midnight, some keys. */
const QUERIES: UsageSummaryQuery[] = [
  { group_by: ['key', 'team', 'model', 'endpoint', 'hour'] },
  { group_by: ['team', 'day'] },
  { group_by: ['model'] },
  { group_by: ['endpoint', 'hour'], from: DAY_ONE + 6 * 3_600_000, to: DAY_ONE + 30 * 3_600_000 },
  { group_by: ['key', 'day'], key_ids: ['sk-a', 'sk-c'], from: DAY_ONE },
];

interface Answers {
  readonly summaries: UsageSummaryRow[][];
  readonly lastUsed: [string, string][];
}

/** What a user reads from the roll-ups. */
async function answers(store: EmbeddedUsageStore): Promise<Answers> {
  const summaries: UsageSummaryRow[][] = [];
  for (const query of QUERIES) summaries.push(await store.summary(query));
  return { summaries, lastUsed: [...(await store.lastUsed(KEYS))] };
}

const totalRequests = (a: Answers): number => a.summaries[2]!.reduce((sum, row) => sum + row.requests, 0);

/** `n` records of several keys, teams, models and endpoints, 7 minutes apart from `from` on. */
function varied(n: number, from: number): UsageRecord[] {
  return Array.from({ length: n }, (_, i) =>
    newRecord({
      key_id: i % 11 === 0 ? null : KEYS[i % KEYS.length]!,
      ...(i % 3 === 0 ? {} : { team_id: i % 2 ? 'team-red' : 'team-blue' }),
      model: `model-${i % 3}`,
      endpoint: i % 4 === 0 ? 'responses' : 'chat-completions',
      prompt_tokens: i,
      completion_tokens: 2 * i,
      cost_micros: i % 7 === 0 ? null : 40 + i,
      ...(i % 5 === 0 ? { batch_id: 'batch-1', custom_id: `line-${i}` } : {}),
      ...(i % 6 === 0 ? { cache: 'hit' as const, saved_micros: 9 } : {}),
      created_at: new Date(from + i * 7 * 60_000).toISOString(),
    }),
  );
}

const bill = (id: string): UsageRecord =>
  newRecord({
    id,
    endpoint: 'video',
    video_seconds: 5,
    cost_micros: 500_000,
    created_at: '2026-03-01T05:00:00.000Z',
  });

function opener(dir: string, rotateBytes = TEST_USAGE_WRITES.rotateBytes) {
  return (logger?: Logger) => EmbeddedUsageStore.open(dir, { ...TEST_USAGE_WRITES, rotateBytes, logger });
}

/** Records `records` and closes the store (close writes what is queued, then a checkpoint). */
async function writeAndClose(store: EmbeddedUsageStore, records: readonly UsageRecord[]): Promise<void> {
  for (const r of records) store.record(r);
  await store.close();
}

/** Records each in a write of its own, so a small rotation size rotates between them. */
async function writeOneByOne(store: EmbeddedUsageStore, records: readonly UsageRecord[]): Promise<void> {
  for (const r of records) {
    store.record(r);
    await store.flush();
  }
}

/** The checkpoint as it is now, to be put back later. */
async function keepCheckpoint(dir: string): Promise<() => Promise<void>> {
  const bytes = await readFile(join(dir, CHECKPOINT_FILE));
  return () => writeFile(join(dir, CHECKPOINT_FILE), bytes);
}

/** The reference: what a store that reads every file answers (its checkpoint deleted first). */
async function fullRead(dir: string): Promise<Answers> {
  await rm(join(dir, CHECKPOINT_FILE), { force: true });
  const store = await EmbeddedUsageStore.open(dir, TEST_USAGE_WRITES);
  try {
    return await answers(store);
  } finally {
    await store.close();
  }
}

const readEverything = (lines: readonly LogLine[]): LogLine | undefined =>
  lines.find((l) => /reading every usage file|reading every one/.test(l.msg));

const rotatedFiles = async (dir: string): Promise<string[]> =>
  (await readdir(dir)).filter((f) => /^usage-\d{8}T\d{9}Z\.jsonl$/.test(f)).sort();

const linesOf = async (file: string): Promise<string[]> =>
  (await readFile(file, 'utf8')).split('\n').filter(Boolean);

t.test(
  'a checkpoint, more records, a restart: the lines after it are read, answers as a full read',
  async (t) => {
    const dir = await tempDir(t);
    const open = opener(dir);
    const first = await open();
    t.equal(await first.recordOnce(bill('vt-before')), true);
    await writeAndClose(first, varied(30, DAY_ONE));
    const putBack = await keepCheckpoint(dir);

    const second = await open();
    t.equal(await second.recordOnce(bill('vt-after')), true);
    await writeAndClose(second, varied(25, DAY_ONE + 20 * 3_600_000));
    await putBack(); // as if the second store had stopped without its last checkpoint

    const { logger, lines } = capturingLogger();
    const third = await open(logger);
    t.notOk(readEverything(lines), 'the checkpoint is used');
    const got = await answers(third);
    t.equal(totalRequests(got), 57, 'every record once: 55 and two bills');
    t.equal(await third.recordOnce(bill('vt-before')), false, 'a bill from before the checkpoint is refused');
    t.equal(await third.recordOnce(bill('vt-after')), false, 'and one written after it');
    await third.close();
    t.strictSame(got, await fullRead(dir), 'summaries and lastUsed as a full read gives them');
  },
);

t.test('a bill written before the checkpoint is still refused after a restart', async (t) => {
  const dir = await tempDir(t);
  const open = opener(dir);
  const first = await open();
  t.equal(await first.recordOnce(bill('vt-once')), true);
  await first.close();
  const { logger, lines } = capturingLogger();
  const second = await open(logger);
  t.notOk(readEverything(lines), 'the checkpoint is used');
  t.equal(await second.recordOnce(bill('vt-once')), false, 'refused');
  t.equal((await second.list({ id: 'vt-once' })).length, 1, 'written once');
  t.equal(await second.recordOnce(bill('vt-other')), true, 'another id is free');
  await second.close();
});

t.test('rotations since the checkpoint: the file it counted is found rotated', async (t) => {
  const dir = await tempDir(t);
  const open = opener(dir, 2_000); // about six records a file
  const first = await open();
  await writeOneByOne(first, varied(9, DAY_ONE));
  await first.close();
  const putBack = await keepCheckpoint(dir);
  const rotatedAtCheckpoint = await rotatedFiles(dir);
  t.ok((await stat(join(dir, 'usage.jsonl'))).size > 0, 'usage.jsonl holds records at the checkpoint');

  const second = await open();
  await writeOneByOne(second, varied(40, DAY_ONE + 10 * 3_600_000));
  await second.close();
  await putBack();
  t.ok((await rotatedFiles(dir)).length >= rotatedAtCheckpoint.length + 5, 'rotated since the checkpoint');

  const { logger, lines } = capturingLogger();
  const third = await open(logger);
  t.notOk(readEverything(lines), 'the checkpoint is used');
  const got = await answers(third);
  t.equal(totalRequests(got), 49, 'every record once');
  await third.close();
  t.strictSame(got, await fullRead(dir));
});

t.test('usage.jsonl cut shorter than the checkpoint counted: every file is read instead', async (t) => {
  const dir = await tempDir(t);
  const open = opener(dir);
  await writeAndClose(await open(), varied(20, DAY_ONE));
  const file = join(dir, 'usage.jsonl');
  const kept = (await linesOf(file)).slice(0, 12);
  await truncate(file, Buffer.byteLength(kept.join('\n') + '\n'));

  const { logger, lines } = capturingLogger();
  const store = await open(logger);
  t.match(readEverything(lines), { level: 40, reason: /shorter/ }, 'the reason is logged');
  const got = await answers(store);
  t.equal(totalRequests(got), 12, 'only the records the file holds');
  await store.close();
  t.strictSame(got, await fullRead(dir));
});

t.test('a rotated file the checkpoint counted is removed by hand: every file is read instead', async (t) => {
  const dir = await tempDir(t);
  const open = opener(dir, 2_000);
  const first = await open();
  await writeOneByOne(first, varied(30, DAY_ONE));
  await first.close();
  const [oldest] = await rotatedFiles(dir);
  const removed = (await linesOf(join(dir, oldest!))).length;
  await rm(join(dir, oldest!));

  const { logger, lines } = capturingLogger();
  const store = await open(logger);
  t.match(readEverything(lines), { level: 40, reason: new RegExp(oldest!) }, 'the file is named');
  const got = await answers(store);
  t.equal(totalRequests(got), 30 - removed, 'the removed records are no longer counted');
  await store.close();
  t.strictSame(got, await fullRead(dir));
});

t.test('a checkpoint of another version, or not one at all: every file is read instead', async (t) => {
  const dir = await tempDir(t);
  const open = opener(dir);
  await writeAndClose(await open(), varied(10, DAY_ONE));
  const file = join(dir, CHECKPOINT_FILE);
  const bytes = await readFile(file);
  await writeFile(
    file,
    Buffer.from(bytes.toString('latin1').replace('"version":1', '"version":9'), 'latin1'),
  );

  const { logger, lines } = capturingLogger();
  const store = await open(logger);
  t.match(readEverything(lines), { level: 40, err: { message: /version 9/ } });
  t.equal(totalRequests(await answers(store)), 10);
  await store.close();

  await writeFile(file, 'not a checkpoint');
  const again = capturingLogger();
  const other = await open(again.logger);
  t.ok(readEverything(again.lines), 'garbage is set aside too');
  t.equal(totalRequests(await answers(other)), 10);
  await other.close();
});

/** Rewrites the checkpoint as if `lost` had been queued when it was taken: counted, its line pending. */
async function checkpointWithPending(dir: string, lost: UsageRecord): Promise<void> {
  const file = join(dir, CHECKPOINT_FILE);
  const checkpoint = (await readCheckpoint(file))!;
  const rollup = UsageRollup.restore(checkpoint.rollup);
  rollup.add(lost);
  await writeCheckpoint(file, { ...checkpoint, pending: [usageLine(lost)], rollup: rollup.exportState() });
}

t.test('a line counted while queued that never reached the disk: counted once, and written', async (t) => {
  const dir = await tempDir(t);
  const open = opener(dir);
  await writeAndClose(await open(), varied(10, DAY_ONE));
  const lost = newRecord({ key_id: 'sk-b', created_at: '2026-03-01T02:30:00.000Z' });
  await checkpointWithPending(dir, lost);

  const { logger, lines } = capturingLogger();
  const store = await open(logger);
  t.notOk(readEverything(lines), 'the checkpoint is used');
  t.match(lines, [{ level: 40, count: 1, msg: /appended to usage.jsonl/ }], 'the append is logged');
  const got = await answers(store);
  t.equal(totalRequests(got), 11, 'counted once');
  t.strictSame(await store.list({ id: lost.id }), [lost], 'and written');
  await store.close();
  const onDisk = await linesOf(join(dir, 'usage.jsonl'));
  t.equal(onDisk.filter((l) => l === usageLine(lost)).length, 1, 'once in usage.jsonl');
  t.strictSame(got, await fullRead(dir), 'the files and the roll-ups agree');
});

t.test(
  'a line counted while queued and written after the checkpoint: counted once, not written again',
  async (t) => {
    const dir = await tempDir(t);
    const open = opener(dir);
    await writeAndClose(await open(), varied(10, DAY_ONE));
    const queued = newRecord({ key_id: 'sk-c', created_at: '2026-03-01T03:30:00.000Z' });
    await checkpointWithPending(dir, queued);
    await appendFile(join(dir, 'usage.jsonl'), usageLine(queued) + '\n'); // its write came after the checkpoint

    const { logger, lines } = capturingLogger();
    const store = await open(logger);
    t.notOk(readEverything(lines), 'the checkpoint is used');
    t.notOk(
      lines.some((l) => /appended/.test(l.msg)),
      'nothing appended',
    );
    const got = await answers(store);
    t.equal(totalRequests(got), 11, 'counted once');
    await store.close();
    const onDisk = await linesOf(join(dir, 'usage.jsonl'));
    t.equal(onDisk.filter((l) => l === usageLine(queued)).length, 1, 'once in usage.jsonl');
    t.strictSame(got, await fullRead(dir));
  },
);

t.test('a torn last line after the checkpoint: skipped, and the next record is whole', async (t) => {
  const dir = await tempDir(t);
  const open = opener(dir);
  await writeAndClose(await open(), varied(10, DAY_ONE));
  const putBack = await keepCheckpoint(dir);
  await writeAndClose(await open(), varied(5, DAY_ONE + 2 * 3_600_000));
  const torn = usageLine(newRecord({ key_id: 'sk-torn' }));
  await appendFile(join(dir, 'usage.jsonl'), torn.slice(0, 40)); // a crash mid-append
  await putBack();

  const { logger, lines } = capturingLogger();
  const store = await open(logger);
  t.notOk(readEverything(lines), 'the checkpoint is used');
  const got = await answers(store);
  t.equal(totalRequests(got), 15, 'the torn line is not counted');
  const next = newRecord({ key_id: 'sk-next', created_at: '2026-03-01T04:00:00.000Z' });
  store.record(next);
  t.strictSame(await store.list({ key_id: 'sk-next' }), [next], 'a record after it reads back whole');
  await store.close();
  t.strictSame(await answers(await reopened(open, t)), await fullRead(dir));
});

/** A store opened again (closed at the test's end), for answers after a change. */
async function reopened(open: () => Promise<EmbeddedUsageStore>, t: Teardown): Promise<EmbeddedUsageStore> {
  const store = await open();
  t.teardown(() => store.close());
  return store;
}

t.test('checkpoints are taken as lines are written, not only at close', async (t) => {
  const dir = await tempDir(t);
  const store = await EmbeddedUsageStore.open(dir, { ...TEST_USAGE_WRITES, checkpointEvery: 10 });
  t.teardown(() => store.close());
  const records = varied(25, DAY_ONE);
  for (const r of records) store.record(r);
  const file = join(dir, CHECKPOINT_FILE);
  await eventually(async () => (await readCheckpoint(file).catch(() => undefined)) !== undefined);
  const putBack = await keepCheckpoint(dir); // one taken while records were still coming
  await store.close();
  await putBack();

  const { logger, lines } = capturingLogger();
  const again = await opener(dir)(logger);
  t.notOk(readEverything(lines), 'the checkpoint is used');
  const got = await answers(again);
  t.equal(totalRequests(got), 25);
  await again.close();
  t.strictSame(got, await fullRead(dir));
});

t.test('a checkpoint that cannot be written is logged; usage is written all the same', async (t) => {
  const dir = await tempDir(t);
  await mkdir(join(dir, CHECKPOINT_FILE)); // a directory where the file should go
  const { logger, lines } = capturingLogger();
  const store = await opener(dir)(logger);
  const records = varied(8, DAY_ONE);
  await writeAndClose(store, records);
  t.match(
    lines.find((l) => /writing usage.checkpoint failed/.test(l.msg)),
    { level: 50 },
    'the failure is logged',
  );
  await rm(join(dir, CHECKPOINT_FILE), { recursive: true });
  const again = await reopened(opener(dir), t);
  t.equal((await again.list()).length, 8, 'every record written');
  t.equal(totalRequests(await answers(again)), 8);
});
