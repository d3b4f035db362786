/**
 * Names the JIT's code in callgrind's dumps. V8 compiles JavaScript into memory callgrind knows nothing
 * of, so its dumps call that code by address (`fn=(12) 0x000000000d1eaa80`); with `--perf-basic-prof`
 * node writes `/tmp/perf-<pid>.map` (start, size and name of each piece of code, `JS:*handle file:line`),
 * and the names are put in the dumps' place, so `callgrind_annotate` and KCachegrind show them.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

interface CodeRange {
  readonly start: number;
  readonly end: number;
  readonly name: string;
}

/** The map's ranges, sorted by start; empty when the map is missing (node ran without the flag). */
async function codeRanges(pid: number): Promise<CodeRange[]> {
  const text = await readFile(`/tmp/perf-${pid}.map`, 'utf8').catch(() => '');
  const ranges: CodeRange[] = [];
  for (const line of text.split('\n')) {
    const [start, size, ...name] = line.split(' ');
    if (start === undefined || size === undefined || name.length === 0) continue;
    const from = Number.parseInt(start, 16);
    ranges.push({ start: from, end: from + Number.parseInt(size, 16), name: name.join(' ') });
  }
  return ranges.sort((a, b) => a.start - b.start);
}

/** The range holding `address`, by binary search (later code may reuse an address: the last start wins). */
function rangeAt(ranges: readonly CodeRange[], address: number): CodeRange | undefined {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid]!.start <= address) lo = mid + 1;
    else hi = mid - 1;
  }
  const found = ranges[hi];
  return found && address < found.end ? found : undefined;
}

/** A function defined by address in a dump line (`fn=`, `cfn=`, `jfn=`...): its id and address. */
const ADDRESSED = /^(c?[fj]?fn=\(\d+\)) 0x([0-9a-f]+)$/;

/** Rewrites the dumps of process `pid` in `dir` with the names its perf map gives; returns how many. */
export async function nameJitCode(dir: string, pid: number): Promise<number> {
  const ranges = await codeRanges(pid);
  if (ranges.length === 0) return 0;
  const dumps = (await readdir(dir)).filter((f) => f.startsWith(`callgrind.${pid}`));
  for (const dump of dumps) {
    const path = join(dir, dump);
    const lines = (await readFile(path, 'utf8')).split('\n').map((line) => {
      const m = ADDRESSED.exec(line);
      const range = m && rangeAt(ranges, Number.parseInt(m[2]!, 16));
      return range ? `${m[1]} ${range.name}` : line;
    });
    await writeFile(path, lines.join('\n'));
  }
  return dumps.length;
}
