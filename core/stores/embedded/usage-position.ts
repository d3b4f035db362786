/**
 * Where a checkpoint stands in the usage files (usage-checkpoint.ts), and what to read past it at open.
 * A checkpoint counts some rotated files whole (by name and size) and a length of the file appended to,
 * known by its inode: a rotation renames it, which keeps the inode, so after a rotation it is found
 * among the rotated files. Files that no longer fit that picture (one removed, rewritten, cut short,
 * put in place of another) make the position unusable, and the store reads every file.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { FilePosition } from './append-log';
import type { CheckpointPosition, FileMark } from './usage-checkpoint';

/** A usage file as it stands. */
export interface UsageFile {
  readonly path: string;
  readonly name: string;
  readonly size: number;
  readonly dev: number;
  readonly ino: number;
}

/** A part of the usage files to read: `path` from byte `from` on. */
export interface TailRead {
  readonly path: string;
  readonly from: number;
}

/** The files, in the log's order, each as it stands now; one gone meanwhile is left out. */
export async function statFiles(paths: readonly string[]): Promise<UsageFile[]> {
  const files: UsageFile[] = [];
  for (const path of paths) {
    try {
      const s = await stat(path);
      files.push({ path, name: basename(path), size: s.size, dev: s.dev, ino: s.ino });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  return files;
}

/**
 * The position of the log's files now, `appending` being where appends go: the files before that one
 * count whole. Undefined with a reason when none can be given truthfully: the file appended to is gone,
 * or a file the roll-ups count (`counted`) is no longer there as it was, so the roll-ups hold records
 * no file does and only reading every file again gives the totals a restart should show.
 */
export function positionNow(
  files: readonly UsageFile[],
  appending: FilePosition,
  counted: readonly FileMark[],
): CheckpointPosition | { readonly unusable: string } {
  const at = files.findIndex((f) => f.dev === appending.dev && f.ino === appending.ino);
  if (at < 0) return { unusable: 'the file appended to is not among the usage files' };
  const rotated = files.slice(0, at).map(({ name, size }) => ({ name, size }));
  const changed = changedFile(counted, rotated);
  if (changed) return { unusable: `${changed} is gone or changed since it was counted` };
  return { rotated, current: { dev: appending.dev, ino: appending.ino, size: appending.size } };
}

/**
 * What to read to bring a checkpoint up to the files: the rest of the file it was appending to, and every
 * file after it. Undefined with a reason when the files no longer fit the position.
 */
export function tailAfter(
  position: CheckpointPosition,
  files: readonly UsageFile[],
): readonly TailRead[] | { readonly unusable: string } {
  const changed = changedFile(position.rotated, files);
  if (changed) return { unusable: `${changed} is gone or changed since the checkpoint` };
  const { current } = position;
  const next = files[position.rotated.length];
  if (!next || next.dev !== current.dev || next.ino !== current.ino) {
    return { unusable: 'the file appended to at the checkpoint is not the next one' };
  }
  if (next.size < current.size) {
    return {
      unusable: `${next.name} is shorter (${next.size} bytes) than the checkpoint counted (${current.size})`,
    };
  }
  return [
    { path: next.path, from: current.size },
    ...files.slice(position.rotated.length + 1).map((f) => ({ path: f.path, from: 0 })),
  ];
}

/** The name of the first of `expected` that `files` do not begin with, by name and size. */
function changedFile(expected: readonly FileMark[], files: readonly FileMark[]): string | undefined {
  return expected.find((mark, i) => files[i]?.name !== mark.name || files[i]?.size !== mark.size)?.name;
}
