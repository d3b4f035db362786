/**
 * Finding plugins on disk, so adding one touches only its own folder and gateway.yaml: in a plugin folder
 * every module file is a plugin, and so is every subfolder's `index`; a subfolder without an `index` only
 * holds what its plugins share (and is not loaded for itself).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadFolderModules } from '../../lib/folder-modules';
import { definedPlugins, type AnyPluginRegistration } from './define-plugin';

/** The folders under plugins/ whose modules are plugins: stages, families, protocols, API translators and services. */
const PLUGIN_FOLDERS = ['middleware', 'upstreams', 'video-protocols', 'translators', 'services'];

/** Loads every plugin module under `root` (the compiled plugins/ folder); each defines its plugin. */
export function loadPlugins(root: string): readonly AnyPluginRegistration[] {
  // Each module defines its plugin as it loads (definePlugin); what it exports is not needed.
  for (const folder of PLUGIN_FOLDERS) {
    // A deployment may ship no plugin of a kind: its folder is then absent.
    if (existsSync(join(root, folder))) loadFolderModules(join(root, folder));
  }
  return definedPlugins();
}
