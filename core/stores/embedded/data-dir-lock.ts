/**
 * One gateway process per embedded data directory. The embedded stores hold their state in memory and
 * rewrite or append their files; a second process on the same directory would overwrite the first one's
 * keys and tasks without either noticing. So the stores open only under `<data_dir>/gateway.lock`.
 *
 * The lock file names its holder (pid, host, start time). It appears complete and atomically: written to
 * a private temporary file, synced, then hard-linked to its name (a link fails when the name exists, so
 * exactly one process wins). No heartbeat is needed: a lock left by a crash (SIGKILL, power cut) is
 * recognised because its holder is on this host and no longer running, or is this very pid (a container
 * restarted, where the gateway is pid 1 again), or its pid now belongs to a process started at another
 * time (pid reuse, read from /proc on Linux). Such a lock is taken over at once. A holder on another host
 * (a directory shared over the network) cannot be checked: the message says which file to remove.
 *
 * Hand-written rather than `proper-lockfile`: that library decides staleness by an mtime it refreshes on a
 * timer, so a restart right after a crash waits out the stale period, and its lock records no holder to
 * name in the message.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { readFileIfExists, syncDir } from './atomic-file';

export const LOCK_FILE = 'gateway.lock';

/** Who holds a data directory, as written in its lock file. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** When the holder took the lock (ISO time). */
  readonly started_at: string;
  /** The holder's start time in the kernel's clock ticks since boot (Linux), to tell a reused pid apart. */
  readonly proc_start?: string | undefined;
}

/** The data directory is held by another gateway. The message names the directory and the holder. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockHolder | undefined,
    reason: string,
  ) {
    super(`data directory ${dir} is in use: ${reason}`);
    this.name = 'DataDirLockedError';
  }
}

/** Lock files this process holds: a second open here is refused, not mistaken for a restart. */
const heldHere = new Set<string>();

export class DataDirLock {
  private released = false;

  private constructor(
    readonly file: string,
    private readonly content: string,
  ) {}

  /** Takes the lock on `dir`, taking over a stale one; throws DataDirLockedError if another gateway holds it. */
  static async acquire(dir: string): Promise<DataDirLock> {
    const file = join(resolve(dir), LOCK_FILE);
    if (heldHere.has(file)) {
      throw new DataDirLockedError(dir, undefined, 'this process already has it open');
    }
    await mkdir(dir, { recursive: true });
    const content = JSON.stringify(await me()) + '\n';
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await writeSynced(temp, content);
    try {
      // A few rounds: each lost race either meets a live holder (refused) or a lock gone meanwhile.
      for (let round = 0; round < 5; round++) {
        if (await linkOnce(temp, file)) {
          await syncDir(dir);
          heldHere.add(file);
          return new DataDirLock(file, content);
        }
        const text = await readFileIfExists(file);
        if (text === undefined) continue; // released between our link and our read
        const holder = parseHolder(text);
        if (!holder) {
          throw new DataDirLockedError(
            dir,
            undefined,
            `its lock file ${file} cannot be read; if no gateway runs on this directory, remove it`,
          );
        }
        if (!(await isStale(holder))) throw new DataDirLockedError(dir, holder, describeHolder(holder, file));
        await removeStale(file, text);
      }
      throw new DataDirLockedError(dir, undefined, `other processes keep taking ${file}; try again`);
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }

  /** Removes the lock file, if it is still this process's (it always is, unless someone removed it by hand). */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    heldHere.delete(this.file);
    if ((await readFileIfExists(this.file)) === this.content) await unlink(this.file);
  }
}

async function me(): Promise<LockHolder> {
  return {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    proc_start: await procStart(process.pid),
  };
}

/** `pid 1234 on host h1, started 2026-…` and what to do about it. */
function describeHolder(holder: LockHolder, file: string): string {
  const who = `pid ${holder.pid} on host ${holder.host}, started ${holder.started_at}`;
  return (
    `another gateway holds it (${who}). Two processes on one directory would overwrite each other's keys ` +
    'and tasks: stop that one or use another data_dir (several instances share storage.driver: mongodb). ' +
    `If that process is gone, remove ${file}`
  );
}

/** A lock whose holder cannot be running any more. Only a holder on this host can be checked. */
async function isStale(holder: LockHolder): Promise<boolean> {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return true; // not held here (checked first): an earlier life of this pid
  if (!isRunning(holder.pid)) return true;
  // The pid runs: a reused pid shows another start time. Unreadable (no /proc): trust the pid.
  const running = await procStart(holder.pid);
  return holder.proc_start !== undefined && running !== undefined && running !== holder.proc_start;
}

/** Signal 0 checks a pid without signalling it: ESRCH means no such process, EPERM one of another user. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Moves the stale lock aside and checks that what moved is the lock judged stale: another process may
 * have taken the lock over in between, and then its lock goes back (unless yet another took the name).
 */
async function removeStale(file: string, staleText: string): Promise<void> {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await rename(file, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else removed it
    throw e;
  }
  if ((await readFile(aside, 'utf8')) !== staleText) await linkOnce(aside, file);
  await unlink(aside);
}

/** Links `from` to `to`; false when `to` exists. */
async function linkOnce(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

async function writeSynced(file: string, content: string): Promise<void> {
  const handle = await open(file, 'wx', 0o644);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder> | null;
    if (typeof value?.pid !== 'number' || typeof value.host !== 'string') return undefined;
    return {
      pid: value.pid,
      host: value.host,
      started_at: typeof value.started_at === 'string' ? value.started_at : 'at an unknown time',
      proc_start: typeof value.proc_start === 'string' ? value.proc_start : undefined,
    };
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function startTicks(stat: string): string | undefined {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/** A process's start time, or undefined where /proc is not there. */
async function procStart(pid: number): Promise<string | undefined> {
  const stat = await readFileIfExists(`/proc/${pid}/stat`).catch(() => undefined);
  return stat === undefined ? undefined : startTicks(stat);
}
