import { mkdir, open, readdir, rename, readFile, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const TEMP_SUFFIX = '.tmp';

/**
 * Writes a file so that a crash leaves either the old or the new content, never a torn one. Content in
 * parts is written one part after another, as they come: a large file is never one string or buffer.
 */
export async function writeFileAtomic(
  file: string,
  content: string | Uint8Array | Iterable<Uint8Array> | AsyncIterable<string | Uint8Array>,
  mode = 0o600,
): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Date.now()}${TEMP_SUFFIX}`;
  const handle = await open(temp, 'w', mode);
  try {
    const parts = typeof content === 'string' || content instanceof Uint8Array ? [content] : content;
    for await (const part of parts) await handle.writeFile(part); // each from where the last one ended
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
  await syncDir(dirname(file));
}

/**
 * Removes what writes of `file` that a crash cut short left beside it: their temporary files. Only for a
 * file no other process writes (the data directory's lock says so), since a write under way looks the same.
 */
export async function removeUnfinishedWrites(file: string): Promise<void> {
  const prefix = `${basename(file)}.`;
  const dir = dirname(file);
  const names = await readdir(dir).catch(() => []);
  for (const name of names) {
    if (name.startsWith(prefix) && name.endsWith(TEMP_SUFFIX)) await rm(join(dir, name), { force: true });
  }
}

/** Where a directory cannot be opened or synced (Windows; some network and FUSE file systems). */
const NO_DIR_SYNC = new Set(['EISDIR', 'EPERM', 'EINVAL']);

/**
 * Syncs a directory's entries to disk. A rename (or a new name) is durable only once its directory is:
 * on Linux, the file's own fsync does not cover the entry, so a power cut could bring back the old file.
 */
export async function syncDir(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (e) {
    if (!NO_DIR_SYNC.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
  } finally {
    await handle?.close();
  }
}

/** Renames a file; false when it does not exist. */
export async function renameIfExists(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

/** Reads a file, or returns undefined when it does not exist. */
export async function readFileIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
