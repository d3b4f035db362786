import { mkdir, open, rename, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Writes a file so that a crash leaves either the old or the new content, never a torn one. */
export async function writeFileAtomic(file: string, content: string, mode = 0o600): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const handle = await open(temp, 'w', mode);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
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
