/**
 * The modules a folder holds, found on disk so that adding one is adding its file: every compiled
 * module file, and every subfolder's `index` (a subfolder without one only holds what the others share).
 * Plugins and the simulator's families are both found this way.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The compiled modules of `folder`, in name order so what they define is defined in a stable order. */
export function folderModules(folder: string): string[] {
  const entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  return entries.flatMap((entry) => {
    if (entry.isFile()) return entry.name.endsWith('.js') ? [join(folder, entry.name)] : [];
    if (!entry.isDirectory()) return [];
    return readdirSync(join(folder, entry.name)).includes('index.js')
      ? [join(folder, entry.name, 'index.js')]
      : [];
  });
}

/** Loads each module of `folder` but `except` (a folder's own index, say), and returns what each exports. */
export function loadFolderModules(folder: string, except?: string): unknown[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- found at run time, so not importable statically
  return folderModules(folder).flatMap((file) => (file === except ? [] : [require(file) as unknown]));
}
