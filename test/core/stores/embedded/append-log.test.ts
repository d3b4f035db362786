/** The append-only log under the embedded usage store: all-or-nothing appends, torn lines, rotation by size. */
import t from 'tap';
import * as fsPromises from 'node:fs/promises';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as AppendLogModule from '../../../../core/stores/embedded/append-log';
import { AppendLog } from '../../../../core/stores/embedded/append-log';
import { tempDir } from '../../../helpers/gateway';

const NEVER = Number.MAX_SAFE_INTEGER;
const fail = (e: unknown) => {
  throw e;
};

/** The lines of every file of the log, in its order. */
async function allLines(log: AppendLog): Promise<string[]> {
  const lines: string[] = [];
  for (const file of await log.files()) {
    const text = await readFile(file, 'utf8').catch(() => '');
    lines.push(...text.split('\n').filter(Boolean));
  }
  return lines;
}

t.test('a failed append is cut off before the next one: a retried batch is written once', async (t) => {
  // The append writes a few of its bytes, then fails, as a full disk or an I/O error would.
  let faults = 1;
  const open: typeof fsPromises.open = async (path, flags, mode) => {
    const handle = await fsPromises.open(path, flags, mode);
    const appendFile = handle.appendFile.bind(handle);
    handle.appendFile = async (data, options) => {
      if (faults === 0) return appendFile(data, options);
      faults--;
      await appendFile(String(data).slice(0, 5));
      throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
    };
    return handle;
  };
  const mocked = t.mockRequire<typeof AppendLogModule>('../../../../core/stores/embedded/append-log', {
    'node:fs/promises': t.createMock(fsPromises, { open }),
  });
  const dir = await tempDir(t);
  const log = await mocked.AppendLog.open(dir, 'usage', NEVER, fail);
  t.teardown(() => log.close());
  faults = 0;
  await log.append('{"n":1}\n', false);
  faults = 1;
  const batch = '{"n":2}\n{"n":3}\n';
  await t.rejects(log.append(batch, false), { code: 'EIO' });
  t.equal(await readFile(join(dir, 'usage.jsonl'), 'utf8'), '{"n":1}\n{"n":', 'a torn line on disk');
  await log.append(batch, true); // the retry
  t.equal(
    await readFile(join(dir, 'usage.jsonl'), 'utf8'),
    '{"n":1}\n{"n":2}\n{"n":3}\n',
    'the torn part was cut off first: each line once, none torn',
  );
});

t.test('a line torn by a crash is ended on open, so the next line stays whole', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'usage.jsonl'), '{"n":1}\n{"n":');
  const log = await AppendLog.open(dir, 'usage', NEVER, fail);
  t.teardown(() => log.close());
  await log.append('{"n":2}\n', false);
  t.strictSame(await allLines(log), ['{"n":1}', '{"n":', '{"n":2}']);
});

t.test('rotation by size: renamed aside in order, a new file started, nothing lost', async (t) => {
  const dir = await tempDir(t);
  const rotateErrors: unknown[] = [];
  const open = () => AppendLog.open(dir, 'usage', 40, (e) => rotateErrors.push(e));
  let log = await open();
  const written: string[] = [];
  for (let n = 0; n < 30; n++) {
    const line = JSON.stringify({ n, pad: 'x'.repeat(n % 7) });
    written.push(line);
    await log.append(line + '\n', n % 5 === 0);
  }
  const rotated = (await readdir(dir)).filter((f) => f !== 'usage.jsonl');
  t.ok(rotated.length >= 10, `several rotated files (${rotated.length})`);
  t.ok(
    rotated.every((f) => /^usage-\d{8}T\d{9}Z\.jsonl$/.test(f)),
    'named usage-<UTC time>.jsonl',
  );
  t.strictSame(await allLines(log), written, 'every line once, in order, across the files');
  t.strictSame(rotateErrors, []);

  await log.close();
  log = await open(); // a reopen continues after the newest rotated name
  t.teardown(() => log.close());
  for (let n = 30; n < 40; n++) {
    const line = JSON.stringify({ n });
    written.push(line);
    await log.append(line + '\n', false);
  }
  t.strictSame(await allLines(log), written, 'still in order after a reopen');
});

t.test('a failed rotation is reported once; appends go on in the current file', async (t) => {
  const dir = await tempDir(t);
  const rotateErrors: unknown[] = [];
  const log = await AppendLog.open(dir, 'usage', 10, (e) => rotateErrors.push(e));
  t.teardown(() => log.close());
  // A directory where the next rotated file would go makes the rename fail.
  const later = Date.now() + 60_000;
  const name = `usage-${new Date(later).toISOString().replace(/[-:.]/g, '')}.jsonl`;
  await mkdir(join(dir, name));
  await mkdir(join(dir, name, 'occupied'));
  const appendWithClockAt = async (line: string) => {
    const now = Date.now;
    Date.now = () => later;
    try {
      await log.append(line, false);
    } finally {
      Date.now = now;
    }
  };
  await appendWithClockAt('{"n":1}\n');
  await appendWithClockAt('{"n":2}\n');
  t.equal(rotateErrors.length, 1, 'reported once, not per append');
  t.match(rotateErrors[0], { code: 'EISDIR' });
  t.equal(await readFile(join(dir, 'usage.jsonl'), 'utf8'), '{"n":1}\n{"n":2}\n', 'both lines written');
  await log.append('{"n":3}\n', false); // now the name is free: rotated
  const rotated = (await readdir(dir)).filter((f) => f !== 'usage.jsonl' && f !== name);
  t.equal(rotated.length, 1, 'rotated once it could be');
  t.equal(await readFile(join(dir, rotated[0]!), 'utf8'), '{"n":1}\n{"n":2}\n{"n":3}\n');
});
