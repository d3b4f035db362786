/**
 * Which modules of a folder are found on disk (plugins, simulator families): its module files and its
 * subfolders' `index`, never a subfolder of shared code, a source map or a declaration.
 */
import t from 'tap';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { folderModules, loadFolderModules } from '../../lib/folder-modules';
import { tempDir } from '../helpers/gateway';

t.test('a folder file, and a subfolder with an index, are plugins; nothing else is', async (t) => {
  const dir = await tempDir(t);
  const files = [
    'modelx.js',
    'modelx.js.map',
    'modelx.d.ts',
    'acme/index.js',
    'acme/reader.js',
    'shared-helpers/body-fields.js',
    'README.md',
  ];
  for (const file of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), '');
  }
  t.strictSame(
    folderModules(dir).map((p) => relative(dir, p)),
    ['acme/index.js', 'modelx.js'],
  );
});

t.test('loading skips the module named, and returns what each other one exports', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'a.js'), 'exports.family = "a";');
  await writeFile(join(dir, 'b.js'), 'exports.other = 1;');
  await writeFile(join(dir, 'index.js'), 'throw new Error("loaded itself");');
  t.strictSame(loadFolderModules(dir, join(dir, 'index.js')), [{ family: 'a' }, { other: 1 }]);
});
