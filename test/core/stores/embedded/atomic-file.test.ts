/** Atomic writes: whole content or the old one, and the rename made durable by syncing the directory. */
import t from 'tap';
import * as fsPromises from 'node:fs/promises';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as AtomicFile from '../../../../core/stores/embedded/atomic-file';
import { readFileIfExists, writeFileAtomic } from '../../../../core/stores/embedded/atomic-file';
import { tempDir } from '../../../helpers/gateway';

t.test('writes the whole content, replaces the old, leaves no temporary file', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'nested', 'state.json');
  await writeFileAtomic(file, 'first');
  await writeFileAtomic(file, 'second');
  t.equal(await readFile(file, 'utf8'), 'second');
  t.strictSame(await readdir(join(dir, 'nested')), ['state.json'], 'no temporary file is left');
  t.equal(await readFileIfExists(join(dir, 'absent')), undefined);
});

t.test('content in parts is written one after another', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'parts.bin');
  await writeFileAtomic(file, 'longer old content that the new one replaces whole');
  await writeFileAtomic(file, [Buffer.from('head\n'), new Uint8Array(3), Buffer.from('tail')]);
  t.strictSame(await readFile(file), Buffer.from('head\n\0\0\0tail'));
});

t.test('the directory is synced after the rename, so the new name survives a power cut', async (t) => {
  const steps: string[] = [];
  const open: typeof fsPromises.open = async (path, flags, mode) => {
    const handle = await fsPromises.open(path, flags, mode);
    const sync = handle.sync.bind(handle);
    handle.sync = () => {
      steps.push(`sync ${String(path)}`);
      return sync();
    };
    return handle;
  };
  const rename: typeof fsPromises.rename = async (from, to) => {
    steps.push(`rename to ${String(to)}`);
    return fsPromises.rename(from, to);
  };
  const mocked = t.mockRequire<typeof AtomicFile>('../../../../core/stores/embedded/atomic-file', {
    'node:fs/promises': t.createMock(fsPromises, { open, rename }),
  });
  const dir = await tempDir(t);
  const file = join(dir, 'keys.json');
  await mocked.writeFileAtomic(file, '{}');
  t.equal(steps.length, 3, steps.join('; '));
  t.match(steps[0], /^sync .*\.tmp$/, 'the content is synced first');
  t.equal(steps[1], `rename to ${file}`, 'then renamed into place');
  t.equal(steps[2], `sync ${dir}`, 'then the directory is synced');
  t.equal(await readFile(file, 'utf8'), '{}');
});
