#!/usr/bin/env node
/**
 * `npm run test:files -- test/core/main.test.ts [test/config …] [tap options]`: builds, then runs tap on
 * the compiled form of each test file or folder named (`test/core/main.test.ts` runs as
 * dist/test/core/main.test.js), so that one file runs as `npm test` runs them all. Options such as `-t0`
 * or `--grep=…` go to tap as they are.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join, normalize } = require('node:path');

const ROOT = join(__dirname, '..');

/** tap's arguments for this script's: a test source named becomes its compiled file; options stay. */
function tapArguments(args) {
  return args.map((arg) => {
    if (arg.startsWith('-')) return arg;
    const path = normalize(arg).replace(/\/$/, '');
    if (path === 'dist' || path.startsWith('dist/')) return path;
    return join('dist', path.replace(/\.ts$/, '.js'));
  });
}

/**
 * A folder as the test files in it: tap given a folder runs every file there, the helpers beside the
 * tests included, where `npm test` runs only `*.test.js`.
 */
function testFiles(compiled, root = ROOT) {
  const full = join(root, compiled);
  if (compiled.startsWith('-') || !existsSync(full) || !statSync(full).isDirectory()) return [compiled];
  return readdirSync(full, { recursive: true })
    .filter((name) => name.endsWith('.test.js'))
    .sort()
    .map((name) => join(compiled, name));
}

/** The compiled files or folders that are not there after the build, named as the caller wrote them. */
function missing(args, root = ROOT) {
  const compiled = tapArguments(args);
  return args.filter((arg, i) => !arg.startsWith('-') && !existsSync(join(root, compiled[i])));
}

function main() {
  const args = process.argv.slice(2);
  if (args.every((arg) => arg.startsWith('-'))) {
    process.stderr.write('name the test files or folders to run, e.g. npm run test:files -- test/config\n');
    return 2;
  }
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) return build.status ?? 1;
  const absent = missing(args);
  if (absent.length > 0) {
    process.stderr.write(`no such test after the build: ${absent.join(', ')}\n`);
    return 1;
  }
  const tap = spawnSync(
    join(ROOT, 'node_modules', '.bin', 'tap'),
    tapArguments(args).flatMap((a) => testFiles(a)),
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  return tap.status ?? 1;
}

if (require.main === module) process.exitCode = main();
module.exports = { tapArguments, missing, testFiles };
