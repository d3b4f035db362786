/**
 * Writes a planned family to disk, then has the repository's own formatter lay out what it wrote (a
 * long family name can push a generated line past the width `npm run lint` holds the code to). Prettier is
 * run as a program, not imported: the compiled CLI loads only runtime dependencies
 * (test/packaging/runtime-dependencies.test.ts), and prettier is a dev dependency.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FileChange } from './plan';

export function writeChanges(root: string, changes: readonly FileChange[]): void {
  for (const change of changes) {
    const file = join(root, change.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, change.text);
  }
}

/** The files prettier lays out; `.sse` and `.json` fixtures keep their bytes (.prettierignore). */
const FORMATTED = /\.(ts|md|ya?ml)$/;

/** Formats the written files; returns a warning when it could not. */
export function formatChanges(root: string, changes: readonly FileChange[]): string | undefined {
  const prettier = join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs');
  if (!existsSync(prettier)) return 'prettier is not installed: run `npm run format` after `npm ci`';
  const files = changes.map((c) => c.path).filter((path) => FORMATTED.test(path));
  const run = spawnSync(process.execPath, [prettier, '--write', '--log-level', 'warn', ...files], {
    cwd: root,
    encoding: 'utf8',
  });
  return run.status === 0 ? undefined : `prettier failed (${run.status}): ${run.stderr.trim()}`;
}
