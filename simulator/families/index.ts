/**
 * Every family the simulator speaks, found on disk: each module of this folder that exports a `family`
 * is one (a module without it only holds what families share, like openai-error.ts). Adding a family is
 * adding its file; nothing lists them.
 */
import { loadFolderModules } from '../../lib/folder-modules';
import type { Family } from '../family';

export const families: readonly Family[] = loadFolderModules(__dirname, __filename).flatMap((loaded) => {
  const { family } = loaded as { family?: Family };
  return family ? [family] : [];
});
