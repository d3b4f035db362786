/**
 * Finding plugins on disk, so adding one touches only its own folder and gateway.yaml: in a plugin folder
 * every module file is a plugin, and so is every subfolder's `index`; a subfolder without an `index` only
 * holds what its plugins share (and is not loaded for itself).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { definedPlugins, type AnyPluginRegistration } from './define-plugin';

/** The folders under plugins/ whose modules are plugins: the pipeline stages, families and protocols. */
const PLUGIN_FOLDERS = ['middleware', 'upstreams', 'video-protocols'];

/** The compiled plugin modules of `folder`, in name order so definition order is stable. */
export function pluginModules(folder: string): string[] {
  const entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  return entries.flatMap((entry) => {
    if (entry.isFile()) return entry.name.endsWith('.js') ? [join(folder, entry.name)] : [];
    if (!entry.isDirectory()) return [];
    return readdirSync(join(folder, entry.name)).includes('index.js')
      ? [join(folder, entry.name, 'index.js')]
      : [];
  });
}

/** Loads every plugin module under `root` (the compiled plugins/ folder); each defines its plugin. */
export function loadPlugins(root: string): readonly AnyPluginRegistration[] {
  for (const folder of PLUGIN_FOLDERS) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- found at run time, so not importable statically
    for (const file of pluginModules(join(root, folder))) require(file);
  }
  return definedPlugins();
}
