/**
 * Which modules of a plugin folder are plugins: its module files and its subfolders' `index`, never a
 * subfolder of shared code, a source map or a declaration; and the shipped folders hold every built-in.
 */
import t from 'tap';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { definedPluginsOf } from '../../../core/plugins/define-plugin';
import { pluginModules } from '../../../core/plugins/plugin-discovery';
import '../../helpers/load-plugins';
import { tempDir } from '../../helpers/gateway';

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
    pluginModules(dir).map((p) => relative(dir, p)),
    ['acme/index.js', 'modelx.js'],
  );
});

t.test('the shipped folders register every built-in family and protocol', (t) => {
  const shipped = (folder: string) =>
    pluginModules(join(__dirname, '..', '..', '..', 'plugins', folder)).map((p) =>
      basename(p) === 'index.js' ? basename(dirname(p)) : basename(p, '.js'),
    );
  t.strictSame(shipped('upstreams').sort(), [...definedPluginsOf('upstream').keys()].sort());
  t.strictSame(shipped('video-protocols').sort(), [...definedPluginsOf('task-protocol').keys()].sort());
  t.end();
});
