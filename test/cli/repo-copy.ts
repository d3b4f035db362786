/**
 * A throw-away copy of this working tree for tests that change files or build: the tracked files and the
 * untracked ones git does not ignore, as a fresh clone with the work in progress would have them, with
 * this checkout's node_modules linked in. It is a git repository of its own, one commit deep, so that
 * `git status` in it says exactly what a command changed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository's root, from dist/test/cli where the compiled tests run. */
export const ROOT = join(__dirname, '..', '..', '..');

export interface Ran {
  readonly code: number | null;
  /** stdout and stderr as they came, interleaved. */
  readonly output: string;
}

/**
 * The environment of a command run in the copy: this process's, without what tap and npm set for the
 * test that runs it (a nested `tap` would report to this one, an `npm run` would read this package's).
 */
export function copyEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(
    ([name]) => !/^(TAP|_TAPJS_|npm_)/i.test(name) && name !== 'NODE_OPTIONS' && name !== 'INIT_CWD',
  );
  return { ...Object.fromEntries(inherited), ...extra };
}

/** Runs `command` in `cwd` to its end. */
export function run(cwd: string, command: string, args: readonly string[], env = copyEnv()): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (error) => (output += String(error)));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** The end of a long output, enough to show a failure without flooding the report. */
export const tail = (output: string, chars = 12_000): string =>
  output.length > chars ? `…${output.slice(-chars)}` : output;

/**
 * What a tap run's output says of its failures: each `not ok` with the lines after it (its diagnostics),
 * then the end of the output, so a failure far from the end is shown too.
 */
export function failuresOf(output: string, linesAfter = 40): string {
  const lines = output.split('\n');
  const failures = lines.flatMap((line, i) =>
    /^\s*not ok /.test(line) ? [lines.slice(i, i + linesAfter + 1).join('\n')] : [],
  );
  return [...failures.slice(0, 5), tail(output, 4_000)].join('\n…\n');
}

const git = (cwd: string, ...args: string[]) =>
  spawnSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', ...args], {
    cwd,
    encoding: 'utf8',
  });

/** This working tree's files (tracked, and untracked but not ignored); undefined outside a git checkout. */
export function workingTreeFiles(): string[] | undefined {
  const listed = git(ROOT, 'ls-files', '-z', '--cached', '--others', '--exclude-standard');
  if (listed.status !== 0) return undefined;
  // A file deleted and not yet committed is still listed.
  return listed.stdout.split('\0').filter((file) => file && existsSync(join(ROOT, file)));
}

/** Copies `files` into `dir`, links node_modules, and commits the copy as its first commit. */
export function makeCopy(dir: string, files: readonly string[]): void {
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dir, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  git(dir, 'init', '-q');
  commitAll(dir, 'the working tree');
}

export function commitAll(dir: string, message: string): void {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--no-verify', '--no-gpg-sign', '-m', message);
}

/** What changed in the copy since its last commit: each file added or modified, with its status. */
export function changedFiles(dir: string): string[] {
  const status = git(dir, 'status', '--porcelain', '--untracked-files=all');
  return status.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => `${line.slice(0, 2).trim() === '??' ? 'new' : 'changed'} ${line.slice(3)}`)
    .sort();
}
