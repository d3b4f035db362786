/**
 * callgrind's cache simulation set to one core's own caches, read from Linux's sysfs: its first-level
 * instruction and data caches, and its second level as the last. The benchmark pins the proxy under test
 * to one core, so what it does not find in that core's caches it fetches from the shared third level or
 * memory; valgrind's own default would take the third level (hundreds of MB here) as the last, and then
 * count almost no misses at all.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The events a dump holds with the simulation on, as callgrind names them. */
export const CACHE_EVENTS = {
  /** First-level misses: instruction reads, data reads, data writes. */
  l1: ['I1mr', 'D1mr', 'D1mw'],
  /** Misses of the last level simulated (here the second): the fetches from beyond the core. */
  last: ['ILmr', 'DLmr', 'DLmw'],
} as const;

interface CacheGeometry {
  readonly bytes: number;
  readonly ways: number;
  readonly lineBytes: number;
}

const CACHE_DIR = '/sys/devices/system/cpu/cpu0/cache';

const read = (dir: string, file: string): string => readFileSync(join(dir, file), 'utf8').trim();

/** sysfs writes sizes as `48K` or `2048K`. */
function sizeBytes(text: string): number {
  const m = /^(\d+)([KMG]?)$/.exec(text);
  if (!m) throw new Error(`unreadable cache size "${text}"`);
  const unit = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2] as '' | 'K' | 'M' | 'G'];
  return Number(m[1]) * unit;
}

/** The cache of `level` and `type` (`Data`, `Instruction`, `Unified`) of CPU 0. */
function cacheOf(level: number, type: string): CacheGeometry {
  for (let i = 0; ; i++) {
    const dir = join(CACHE_DIR, `index${i}`);
    let found: boolean;
    try {
      found = read(dir, 'level') === String(level) && read(dir, 'type') === type;
    } catch {
      throw new Error(`no level-${level} ${type} cache in ${CACHE_DIR}: the cache simulation needs its size`);
    }
    if (found) {
      return {
        bytes: sizeBytes(read(dir, 'size')),
        ways: Number(read(dir, 'ways_of_associativity')),
        lineBytes: Number(read(dir, 'coherency_line_size')),
      };
    }
  }
}

const flag = (name: string, c: CacheGeometry): string => `--${name}=${c.bytes},${c.ways},${c.lineBytes}`;

/** callgrind's flags simulating this machine's per-core caches. */
export function cacheSimFlags(): string[] {
  return [
    '--cache-sim=yes',
    flag('I1', cacheOf(1, 'Instruction')),
    flag('D1', cacheOf(1, 'Data')),
    flag('LL', cacheOf(2, 'Unified')),
  ];
}

/** A one-line description of the simulated caches, for the report. */
export function cacheSimDescription(): string {
  const kb = (c: CacheGeometry): string => `${c.bytes / 1024} KB`;
  return (
    `caches simulated as one core's: L1i ${kb(cacheOf(1, 'Instruction'))}, L1d ${kb(cacheOf(1, 'Data'))}, ` +
    `L2 ${kb(cacheOf(2, 'Unified'))} as the last level`
  );
}
