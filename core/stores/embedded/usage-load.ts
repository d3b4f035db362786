/**
 * The usage store's state at open: the roll-ups and the ids `recordOnce` wrote. From the checkpoint and
 * the lines written after it when the files still fit its position; else from every file, as before
 * checkpoints (a checkpoint missing, unreadable, of another version, or behind files that changed), which
 * is slower but never wrong.
 *
 * The lines a checkpoint holds as queued were counted in its roll-ups before they were written. The
 * first copy of each found past the position is skipped, so it is counted once; one found nowhere was
 * lost with the process before it reached the disk, and is appended now, so the files hold every record
 * the roll-ups count.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { UsageRollup } from '../usage-rollup';
import type { UsageRecord } from '../usage-store';
import type { AppendLog } from './append-log';
import { removeUnfinishedWrites } from './atomic-file';
import { eachLine } from './journal-lines';
import { CHECKPOINT_FILE, readCheckpoint, type FileMark } from './usage-checkpoint';
import { statFiles, tailAfter, type TailRead, type UsageFile } from './usage-position';

export interface LoadedUsage {
  readonly rollup: UsageRollup;
  readonly onceIds: Set<string>;
  /** The rotated files the roll-ups count: all there are at open. */
  readonly counted: readonly FileMark[];
  /** Lines counted that the checkpoint on disk does not hold (every line when it was not used). */
  readonly sinceCheckpoint: number;
  /** A checkpoint file is there that was not used: the next checkpoint should replace it. */
  readonly stale: boolean;
}

/** Where the roll-ups start from before the lines they lack are read. */
interface Start {
  readonly rollup: UsageRollup;
  readonly onceIds: Set<string>;
  readonly pending: LineCounts;
  readonly reads: readonly TailRead[];
}

export async function loadUsage(dir: string, log: AppendLog, logger: Logger): Promise<LoadedUsage> {
  await removeUnfinishedWrites(join(dir, CHECKPOINT_FILE));
  const paths = await log.files();
  const files = await statFiles(paths);
  const { start, stale } = await fromCheckpoint(join(dir, CHECKPOINT_FILE), files, logger);
  const { rollup, onceIds, pending } = start;
  let lines = 0;
  const read = (line: string): void => {
    lines++;
    if (pending.take(line)) return; // counted in the checkpoint already
    const record = parseLine(line);
    if (!record) return;
    if (record.once) onceIds.add(record.id);
    rollup.add(record);
  };
  for (const { path, from } of start.reads) await eachLine(path, read, from);
  const unwritten = pending.left();
  if (unwritten.length > 0) {
    await log.append(unwritten.join('\n') + '\n', true);
    logger.warn(
      { count: unwritten.length },
      'usage records counted but not written before the last stop are appended to usage.jsonl now',
    );
  }
  const appending = paths.at(-1); // usage.jsonl
  const counted = files.filter((f) => f.path !== appending).map(({ name, size }) => ({ name, size }));
  return { rollup, onceIds, counted, sinceCheckpoint: lines + unwritten.length, stale };
}

/** The checkpoint's state and what to read after it; or, when there is none to use, everything to read. */
async function fromCheckpoint(
  file: string,
  files: readonly UsageFile[],
  logger: Logger,
): Promise<{ start: Start; stale: boolean }> {
  const everything: Start = {
    rollup: new UsageRollup(),
    onceIds: new Set(),
    pending: new LineCounts([]),
    reads: files.map((f) => ({ path: f.path, from: 0 })),
  };
  try {
    const checkpoint = await readCheckpoint(file);
    if (!checkpoint) {
      if (files.some((f) => f.size > 0)) logger.warn('no usage.checkpoint: reading every usage file');
      return { start: everything, stale: false };
    }
    const reads = tailAfter(checkpoint.position, files);
    if ('unusable' in reads) {
      logger.warn(
        { reason: reads.unusable },
        'usage.checkpoint does not fit the usage files: reading every one',
      );
      return { start: everything, stale: true };
    }
    const start = {
      rollup: UsageRollup.restore(checkpoint.rollup),
      onceIds: new Set(checkpoint.onceIds),
      pending: new LineCounts(checkpoint.pending),
      reads,
    };
    return { start, stale: false };
  } catch (e) {
    logger.warn({ err: e }, 'usage.checkpoint could not be read: reading every usage file');
    return { start: everything, stale: true };
  }
}

/** A multiset of lines: each copy is taken once. */
class LineCounts {
  private readonly counts = new Map<string, number>();
  /** The lines in their order, for what is left. */
  private readonly lines: readonly string[];

  constructor(lines: readonly string[]) {
    this.lines = lines;
    for (const line of lines) this.counts.set(line, (this.counts.get(line) ?? 0) + 1);
  }

  /** True, and one copy fewer, when `line` is among them. */
  take(line: string): boolean {
    if (this.counts.size === 0) return false;
    const n = this.counts.get(line);
    if (n === undefined) return false;
    if (n === 1) this.counts.delete(line);
    else this.counts.set(line, n - 1);
    return true;
  }

  /** The copies not taken, in their order. */
  left(): string[] {
    const counts = new Map(this.counts);
    return this.lines.filter((line) => {
      const n = counts.get(line) ?? 0;
      if (n === 0) return false;
      counts.set(line, n - 1);
      return true;
    });
  }
}

/** A record, or undefined for a line torn by a failed or interrupted append (its write was never acknowledged). */
export function parseLine(line: string): UsageRecord | undefined {
  try {
    return JSON.parse(line) as UsageRecord;
  } catch {
    return undefined;
  }
}
