/**
 * The start-up warning for a console that was never built: the bundle comes from `npm run build`, so
 * code compiled another way starts without it, and the log must say so rather than leave `/` a bare 404.
 */
import t from 'tap';
import { CONSOLE_BUILD_DIR } from '../../../core/admin/console-assets';
import { consoleNotBuiltWarning } from '../../../core/boot/start-up-log';
import { tempDir } from '../../helpers/gateway';

t.test('a missing console bundle is named with the command that builds it', async (t) => {
  t.match(consoleNotBuiltWarning(await tempDir(t)), /console is not built.*`npm run build` builds it/);
  t.equal(consoleNotBuiltWarning(CONSOLE_BUILD_DIR), undefined, 'npm run build wrote it: no warning');
});
