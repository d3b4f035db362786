/**
 * The embedded usage store beyond the shared contract: real write failures (usage.jsonl on /dev/full,
 * where every write fails with ENOSPC) and rotation of usage.jsonl by size, across a reopen.
 */
import t from 'tap';
import { existsSync } from 'node:fs';
import { readdir, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { EmbeddedUsageStore } from '../../../../core/stores/embedded/embedded-usage-store';
import type { UsageRecord } from '../../../../core/stores/usage-store';
import { tempDir } from '../../../helpers/gateway';
import { capturingLogger, closingAtEnd, TEST_USAGE_WRITES } from '../../../helpers/stores';
import { eventually } from '../../../helpers/wait';
import { newRecord } from '../usage-store.contract';

const NO_DEV_FULL = { skip: existsSync('/dev/full') ? false : 'no /dev/full here' };

/** A data directory whose usage.jsonl is /dev/full: every append fails, as on a full disk. */
async function fullDisk(
  t: Parameters<typeof tempDir>[0],
): Promise<{ dir: string; repair: () => Promise<void> }> {
  const dir = await tempDir(t);
  const file = join(dir, 'usage.jsonl');
  await symlink('/dev/full', file);
  return { dir, repair: () => unlink(file) }; // the next attempt starts a real usage.jsonl
}

t.test(
  'a disk that refuses writes: records are kept and retried, then written once each',
  NO_DEV_FULL,
  async (t) => {
    const { dir, repair } = await fullDisk(t);
    const { logger, lines } = capturingLogger();
    const store = await closingAtEnd(t, () =>
      EmbeddedUsageStore.open(dir, { ...TEST_USAGE_WRITES, logger }),
    )();
    const records = Array.from({ length: 5 }, () => newRecord({ key_id: 'sk-disk' }));
    for (const r of records) store.record(r);
    await eventually(() => store.stats().failedWrites >= 3, 5_000, 'three failed writes');
    t.match(store.stats(), { queued: 5, failing: true });
    await t.rejects(store.flush(), { code: 'ENOSPC' }, 'flush says why');

    await repair();
    await eventually(() => store.stats().queued === 0, 5_000, 'the backlog written');
    t.match(store.stats(), { failing: false });
    t.strictSame(await store.list({ key_id: 'sk-disk' }), records, 'every record once, in order');
    const streak = lines.filter((l) => /usage records/.test(l.msg));
    t.equal(streak.length, 2, 'the failure streak is logged when it starts and when it ends, not per retry');
    t.match(streak[0], { level: 50, err: { code: 'ENOSPC' }, queued: 5 });
    t.match(streak[1], { level: 40, msg: /works again after \d+ failed attempts/ });
  },
);

t.test(
  'closing on a disk that refuses writes logs the records it could not write',
  NO_DEV_FULL,
  async (t) => {
    const { dir } = await fullDisk(t);
    const { logger, lines } = capturingLogger();
    const store = await EmbeddedUsageStore.open(dir, { ...TEST_USAGE_WRITES, logger });
    const records = [newRecord(), newRecord()];
    for (const r of records) store.record(r);
    await store.close(100);
    const unwritten = lines.find((l) => /could not be written before closing/.test(l.msg));
    t.match(unwritten, { level: 50, count: 2, msg: /2 usage records could not be written before closing/ });
    t.strictSame(
      (unwritten?.unwritten as string[]).map((line) => JSON.parse(line) as UsageRecord),
      records,
      'each record is in the log, in full',
    );
  },
);

t.test('rotation: nothing lost, nothing billed twice, across the files and a reopen', async (t) => {
  const dir = await tempDir(t);
  // About three records a file.
  const open = closingAtEnd(t, () =>
    EmbeddedUsageStore.open(dir, { ...TEST_USAGE_WRITES, rotateBytes: 1_000 }),
  );
  const first = await open();
  const bill = newRecord({ id: 'vt-before-rotation', endpoint: 'video', video_seconds: 5 });
  t.equal(await first.recordOnce(bill), true, 'billed before the rotations');
  const records: UsageRecord[] = [];
  for (let i = 0; i < 40; i++) {
    const r = newRecord({ key_id: 'sk-rotate', latency_ms: i });
    records.push(r);
    first.record(r);
    if (i % 4 === 3) await first.flush(); // several writes, several rotations
  }
  await first.flush();
  const rotated = (await readdir(dir)).filter((f) => /^usage-\d{8}T\d{9}Z\.jsonl$/.test(f));
  t.ok(rotated.length >= 5, `several rotated files (${rotated.length})`);
  t.strictSame(
    await first.list({ key_id: 'sk-rotate' }),
    records,
    'list reads every file: each record once, in order',
  );
  t.equal(await first.recordOnce(bill), false, 'a bill from before the rotation is still found');
  t.equal((await first.list({ limit: 3 })).length, 3, 'limit counts across files');
  await first.close();

  const second = await open(); // a restart reads the rotated files too
  t.equal(await second.recordOnce(bill), false, 'and after a reopen');
  t.strictSame(await second.list({ key_id: 'sk-rotate' }), records);
  t.equal((await second.list({ id: bill.id })).length, 1, 'the bill is there once');
  const summed = { requests: 41, input_tokens: 41 * 10, output_tokens: 41 * 20, cost_micros: 41 * 42 };
  t.strictSame(
    await second.summary({ group_by: ['model'] }),
    [
      {
        model: 'model-1',
        ...summed,
        cost_unknown_requests: 0,
        saved_micros: 0,
        batch_requests: 0,
        batch_cost_micros: 0,
      },
    ],
    'the roll-ups rebuilt at open count the rotated files: 40 records and the bill, once',
  );
});
