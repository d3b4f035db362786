/**
 * One batch's line results in `<batch_id>.jsonl`: a JSON line per result, appended with the others of the
 * same moment (group commit) and synced before the put is acknowledged. Which lines have a result is
 * kept in memory, so the first write per line is decided without reading the file; the results
 * themselves are read back by `list`. The file is created by the first put, not by a read.
 */
import { join } from 'node:path';
import { eachLine } from './journal-lines';
import type { BatchLineResult } from '../batch-line-store';
import { AppendLog } from './append-log';
import { GroupCommit } from './group-commit';

/** The file never rotates: it lives only as long as its batch runs. */
const NEVER_ROTATE = Number.POSITIVE_INFINITY;

export class BatchLineLog {
  /** Lines whose result is on disk. */
  private readonly stored = new Set<number>();
  /** Puts being written, by line: another put of that line waits to learn whether the first one stored it. */
  private readonly writing = new Map<number, Promise<void>>();
  private readonly commit: GroupCommit;
  private log: AppendLog | undefined;

  private constructor(
    private readonly dir: string,
    private readonly batchId: string,
    /** Told each write's outcome (undefined: it succeeded), for readiness. */
    private readonly report: (failure: unknown) => void,
  ) {
    this.commit = new GroupCommit((text) => this.append(text));
  }

  /** The batch's log, with the lines already in its file (a restart) known. */
  static async open(dir: string, batchId: string, report: (failure: unknown) => void): Promise<BatchLineLog> {
    const log = new BatchLineLog(dir, batchId, report);
    await readResults(log.file, (result) => void log.stored.add(result.index));
    return log;
  }

  get file(): string {
    return join(this.dir, `${this.batchId}.jsonl`);
  }

  async put(result: BatchLineResult): Promise<boolean> {
    for (;;) {
      if (this.stored.has(result.index)) return false;
      const under = this.writing.get(result.index);
      if (!under) break;
      await under.catch(() => undefined); // its failure is its own caller's: this put then tries itself
    }
    const write = this.commit.add(JSON.stringify(result), () => this.stored.add(result.index));
    this.writing.set(result.index, write);
    try {
      await write;
      return true;
    } finally {
      if (this.writing.get(result.index) === write) this.writing.delete(result.index);
    }
  }

  /**
   * The stored results in line order. Only lines known as stored are taken: a line whose write failed
   * may sit in the file until the next append cuts it off.
   */
  async list(): Promise<BatchLineResult[]> {
    const results = new Map<number, BatchLineResult>();
    await readResults(this.file, (result) => {
      if (this.stored.has(result.index) && !results.has(result.index)) results.set(result.index, result);
    });
    return [...results.values()].sort((a, b) => a.index - b.index);
  }

  count(): number {
    return this.stored.size;
  }

  /** Waits for the writes under way, then closes the file. */
  async close(): Promise<void> {
    await this.commit.settled();
    await this.log?.close();
    this.log = undefined;
  }

  private async append(text: string): Promise<void> {
    try {
      this.log ??= await AppendLog.open(this.dir, this.batchId, NEVER_ROTATE, () => undefined);
      await this.log.append(text, true);
      this.report(undefined);
    } catch (e) {
      this.report(e);
      throw e;
    }
  }
}

/** Each whole result in the file, in file order; a line torn by a crash is skipped. None if no file. */
async function readResults(file: string, each: (result: BatchLineResult) => void): Promise<void> {
  await eachLine(file, (line) => {
    const result = parseResult(line);
    if (result) each(result);
  });
}

function parseResult(line: string): BatchLineResult | undefined {
  if (!line) return undefined;
  try {
    const value = JSON.parse(line) as Partial<BatchLineResult> | null;
    return typeof value?.index === 'number' ? (value as BatchLineResult) : undefined;
  } catch {
    return undefined; // cut by a crash mid-append: never acknowledged
  }
}
