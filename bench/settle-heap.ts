/**
 * Loaded (`--require`) into each process `npm run bench:instructions` counts, run with `--expose-gc`: on
 * SIGUSR2 it runs a full collection and prints `heap settled <n>` (n counts the signals). The counted
 * window then starts from the same heap whatever the warm-up left, instead of holding a major
 * collection in one run and not in the next, which moved a count by more than a small change costs.
 */
import { writeSync } from 'node:fs';

const collect = (globalThis as { gc?: () => void }).gc;
let settled = 0;

if (collect)
  process.on('SIGUSR2', () => {
    collect();
    settled += 1;
    // Straight to the file or pipe, as one line, whatever else writes to stdout.
    writeSync(1, `heap settled ${settled}\n`);
  });
