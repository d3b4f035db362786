/**
 * Every family the simulator speaks, found on disk: each module of this folder that exports a `family`
 * is one (a module without it only holds what families share, like openai-error.ts). Adding a family is
 * adding its file; nothing lists them.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Family } from '../family';

function familiesOnDisk(): Family[] {
  const modules = readdirSync(__dirname)
    .filter((file) => file.endsWith('.js') && file !== 'index.js')
    .sort();
  return modules.flatMap((file) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- found at run time, so not importable statically
    const loaded = require(join(__dirname, file)) as { family?: Family };
    return loaded.family ? [loaded.family] : [];
  });
}

export const families: readonly Family[] = familiesOnDisk();
