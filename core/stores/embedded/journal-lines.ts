/**
 * The lines of a JSON-lines journal as an embedded store reads it back at open: each non-empty line in
 * file order, none when the file does not exist yet. Parsing (and skipping a line torn by a crash) is
 * the store's own.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export async function* journalLines(file: string): AsyncGenerator<string> {
  try {
    const reader = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    for await (const line of reader) if (line) yield line;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
