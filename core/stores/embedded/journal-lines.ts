/**
 * The lines of a JSON-lines file as an embedded store reads it back: each non-empty line in file order,
 * from byte `from` (the start of a line) on, none when the file does not exist yet. Only a regular file
 * holds lines: a device in its place (/dev/full in the tests) would never end. Parsing, and skipping a
 * line torn by a crash, is the store's own. Lines go to a callback, not out of a generator: a generator's
 * promise per line made reading a million lines half as slow again.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';

export async function eachLine(file: string, onLine: (line: string) => void, from = 0): Promise<void> {
  try {
    if (!(await stat(file)).isFile()) return;
    const reader = createInterface({ input: createReadStream(file, { start: from }), crlfDelay: Infinity });
    for await (const line of reader) if (line) onLine(line);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
