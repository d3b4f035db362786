/** The shipped plugin folders hold every built-in family and protocol, each found on disk. */
import t from 'tap';
import { basename, dirname, join } from 'node:path';
import { definedPluginsOf } from '../../../core/plugins/define-plugin';
import { folderModules } from '../../../lib/folder-modules';
import '../../helpers/load-plugins';

t.test('the shipped folders register every built-in family and protocol', (t) => {
  const shipped = (folder: string) =>
    folderModules(join(__dirname, '..', '..', '..', 'plugins', folder)).map((p) =>
      basename(p) === 'index.js' ? basename(dirname(p)) : basename(p, '.js'),
    );
  t.strictSame(shipped('upstreams').sort(), [...definedPluginsOf('upstream').keys()].sort());
  t.strictSame(shipped('video-protocols').sort(), [...definedPluginsOf('task-protocol').keys()].sort());
  t.end();
});
