/**
 * `npm run test:files`: one test file or folder, named as its source, runs as `npm test` runs it.
 */
import t from 'tap';
import { join } from 'node:path';

interface TestFiles {
  tapArguments(args: readonly string[]): string[];
  missing(args: readonly string[], root?: string): string[];
  testFiles(compiled: string, root?: string): string[];
}
// Plain JavaScript outside the compiled tree: loaded from the repository, as npm runs it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const script = require(join(__dirname, '..', '..', '..', 'scripts', 'test-files.js')) as TestFiles;
const ROOT = join(__dirname, '..', '..', '..');

t.test('a source named runs as its compiled file; folders and options pass on', (t) => {
  t.strictSame(
    script.tapArguments(['test/core/main.test.ts', 'test/config/', '-t0', '--grep=reload', './test/kit']),
    ['dist/test/core/main.test.js', 'dist/test/config', '-t0', '--grep=reload', 'dist/test/kit'],
  );
  t.strictSame(script.tapArguments(['dist/test/core/main.test.js']), ['dist/test/core/main.test.js']);
  t.end();
});

t.test('a name with no compiled test behind it is reported, as written', (t) => {
  t.strictSame(script.missing(['test/packaging/test-files.test.ts', 'test/config', '-t0'], ROOT), []);
  t.strictSame(script.missing(['test/nowhere.test.ts', 'test/config'], ROOT), ['test/nowhere.test.ts']);
  t.end();
});

t.test('a folder runs its test files alone, not the helpers beside them', (t) => {
  const files = script.testFiles('dist/test/plugins', ROOT);
  t.ok(files.length > 10, "the folder's tests, sub-folders included");
  t.ok(files.every((f) => f.endsWith('.test.js')));
  t.ok(files.includes('dist/test/plugins/upstreams/modeld.test.js'));
  t.notOk(files.includes('dist/test/plugins/messages-helpers.js'), 'a helper is not run as a test');
  t.strictSame(script.testFiles('dist/test/core/main.test.js', ROOT), ['dist/test/core/main.test.js']);
  t.end();
});
