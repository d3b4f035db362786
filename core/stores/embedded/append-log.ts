/**
 * An append-only file of JSON lines, `<name>.jsonl`, rotated by size: once it passes `rotateBytes` it is
 * renamed to `<name>-<UTC time>.jsonl` (the directory synced, so the rename survives a power cut) and a
 * new file is started. Readers go through `files()`: every rotated file, oldest first, then the current one.
 *
 * Appends are all or nothing, so a retried batch is never written twice: after a failed append the file
 * is reopened and cut back to the last acknowledged size before anything else is appended (a torn line
 * would otherwise also swallow the next record). Reopening also picks up a file replaced in the meantime.
 * A line torn by a crash is ended on open, for the same reason.
 *
 * Not safe for concurrent calls: the owner runs appends and reads one at a time (its BatchWriter chain).
 */
import { mkdir, open, readdir, rename, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from './atomic-file';
import { endTornLine } from './torn-line';

/** A file by identity (device and inode) and a length of it. */
export interface FilePosition {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
}

export class AppendLog {
  private handle: FileHandle | undefined;
  /** Bytes of the current file that hold acknowledged appends. */
  private size = 0;
  /** Identity of the file `size` is about, to tell "the same file" from "a file put in its place". */
  private inode = { dev: 0, ino: 0 };
  /** An append failed: reopen and cut back before the next one. */
  private broken = false;
  /** A rotation failed: the next failure is not reported again until one succeeds. */
  private rotateFailing = false;
  private lastRotated: string;
  private readonly current: string;

  private constructor(
    private readonly dir: string,
    private readonly name: string,
    private readonly rotateBytes: number,
    /** Told when a rotation fails; appends go on into the current file and rotation is tried again later. */
    private readonly onRotateError: (e: unknown) => void,
    rotated: readonly string[],
  ) {
    this.current = join(dir, `${name}.jsonl`);
    this.lastRotated = rotated.at(-1) ?? '';
  }

  static async open(
    dir: string,
    name: string,
    rotateBytes: number,
    onRotateError: (e: unknown) => void,
  ): Promise<AppendLog> {
    await mkdir(dir, { recursive: true });
    const log = new AppendLog(dir, name, rotateBytes, onRotateError, await rotatedNames(dir, name));
    await log.reopen();
    return log;
  }

  /** Appends `text` (whole lines); `durable` syncs it to disk before resolving. */
  async append(text: string, durable: boolean): Promise<void> {
    if (this.broken) await this.reopen();
    const handle = this.handle!;
    try {
      await handle.appendFile(text);
      if (durable) await handle.datasync();
    } catch (e) {
      this.broken = true;
      throw e;
    }
    this.size += Buffer.byteLength(text);
    if (this.size >= this.rotateBytes) await this.rotate();
  }

  /** Every file of the log in order: the rotated ones oldest first, then the current one. */
  async files(): Promise<string[]> {
    return [...(await rotatedNames(this.dir, this.name)).map((f) => join(this.dir, f)), this.current];
  }

  /**
   * The file appends go to, by identity (a rotation's rename keeps it), and how many of its bytes hold
   * acknowledged appends: where the log stands, for a checkpoint of what was read from it.
   */
  position(): FilePosition {
    return { dev: this.inode.dev, ino: this.inode.ino, size: this.size };
  }

  /** Syncs the file appends go to, so what `position` counts survives a power cut. */
  async sync(): Promise<void> {
    await this.handle?.datasync();
  }

  /** Starts a new current file now, the old one joining the rotated ones (a pruner rewrites only those). */
  async startNewFile(): Promise<void> {
    if (this.size > 0) await this.rotateNow();
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }

  /** Never fails the append it follows (that one is written): a failure is reported once and retried later. */
  private async rotate(): Promise<void> {
    try {
      await this.rotateNow();
      this.rotateFailing = false;
    } catch (e) {
      if (!this.rotateFailing) this.onRotateError(e);
      this.rotateFailing = true;
    }
  }

  private async rotateNow(): Promise<void> {
    const rotated = this.nextRotatedName();
    await rename(this.current, join(this.dir, rotated));
    this.lastRotated = rotated;
    // From here the handle appends to the rotated file: a failure below leaves the log whole, and the
    // next append reopens (and so starts) the current file.
    this.broken = true;
    await syncDir(this.dir);
    await this.reopen();
  }

  /**
   * Opens the current file (creating it). The same file as before is cut back to its acknowledged size;
   * another one (new, rotated, replaced) is taken as it is, with a torn last line ended.
   */
  private async reopen(): Promise<void> {
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    const handle = await open(this.current, 'a+', 0o600);
    this.handle = handle;
    const stat = await handle.stat();
    const same = stat.dev === this.inode.dev && stat.ino === this.inode.ino;
    if (same && stat.size > this.size) {
      await handle.truncate(this.size);
    } else if (!same || stat.size < this.size) {
      this.size = stat.size;
      this.inode = { dev: stat.dev, ino: stat.ino };
      this.size += await endTornLine(handle, this.size);
    }
    this.broken = false;
  }

  /** `<name>-20260101T000000123Z.jsonl`: sorts by time, and always after the last rotated name. */
  private nextRotatedName(): string {
    for (let stamp = Date.now(); ; stamp++) {
      const candidate = `${this.name}-${new Date(stamp).toISOString().replace(/[-:.]/g, '')}.jsonl`;
      if (candidate > this.lastRotated) return candidate;
    }
  }
}

/** The rotated files' names, oldest first (the names sort by time). */
async function rotatedNames(dir: string, name: string): Promise<string[]> {
  const pattern = new RegExp(`^${name}-\\d{8}T\\d{9}Z\\.jsonl$`);
  return (await readdir(dir)).filter((f) => pattern.test(f)).sort();
}
