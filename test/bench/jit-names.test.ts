/** The JIT's code addresses in a callgrind dump are replaced by the names node's perf map gives them. */
import t from 'tap';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nameJitCode } from '../../bench/jit-names';

/** A pid no process here has: the map lives where node writes it, /tmp/perf-<pid>.map. */
const PID = 2_000_000_000 + process.pid;

t.test('addresses inside a mapped range get its name; others stay', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'jit-names-'));
  const map = `/tmp/perf-${PID}.map`;
  t.teardown(() => Promise.all([rm(dir, { recursive: true, force: true }), rm(map, { force: true })]));
  await writeFile(
    map,
    ['d1eaa00 100 JS:*handle /app/x.js:3:10', 'd1eb000 20 JS:~other /app/y.js:1:1', ''].join('\n'),
  );
  const dump = [
    'fn=(1) 0x000000000d1eaa80',
    'cfn=(2) 0x000000000d1eb010',
    'fn=(3) 0x000000000d1eb030',
    'fn=(4) v8::internal::Foo()',
    'calls=1 0x000000000d1eaa80',
  ].join('\n');
  await writeFile(join(dir, `callgrind.${PID}.1`), dump);
  await writeFile(join(dir, 'callgrind.1.1'), dump);
  t.equal(await nameJitCode(dir, PID), 1);
  t.same((await readFile(join(dir, `callgrind.${PID}.1`), 'utf8')).split('\n'), [
    'fn=(1) JS:*handle /app/x.js:3:10',
    'cfn=(2) JS:~other /app/y.js:1:1',
    'fn=(3) 0x000000000d1eb030',
    'fn=(4) v8::internal::Foo()',
    'calls=1 0x000000000d1eaa80',
  ]);
  t.equal(await readFile(join(dir, 'callgrind.1.1'), 'utf8'), dump, "another process's dump is left alone");
});

t.test('without a map nothing is rewritten', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'jit-names-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  t.equal(await nameJitCode(dir, PID + 1), 0);
});
