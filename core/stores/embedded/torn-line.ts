/**
 * A journal's last line torn by a crash (no newline after it) must not swallow the first line appended
 * after it: it is ended before anything is appended. Its change was never acknowledged, and its reader
 * skips it as a line that does not parse.
 */
import type { FileHandle } from 'node:fs/promises';

/** Ends a torn last line of the file open as `handle`, `size` bytes long; returns the bytes appended. */
export async function endTornLine(handle: FileHandle, size: number): Promise<number> {
  if (size === 0) return 0;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  if (last[0] === 0x0a) return 0;
  await handle.appendFile('\n');
  return 1;
}
