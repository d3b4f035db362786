/**
 * The plugins: importing this file registers every one of them with tsyringe (define-plugin.ts). The
 * built-in pipeline stages are listed here; upstream families and task protocols are found on disk, so
 * adding one is a new file or folder under `plugins/upstreams/` or `plugins/video-protocols/` (a folder's
 * plugin is its `index`) and an entry in gateway.yaml, with no edit here or in `core/`.
 */
import 'reflect-metadata';
import { join } from 'node:path';
import { pluginModules } from '../core/plugins/plugin-discovery';

// Pipeline stages (core/middleware).
import '../core/middleware/auth';
import '../core/middleware/rate-limit';
import '../core/middleware/model-router';
import '../core/middleware/budget';
import '../core/middleware/usage-metering';
import '../core/middleware/sse-relay';

/** Folders whose modules are plugins; a subfolder without an `index` only holds what its plugins share. */
const PLUGIN_FOLDERS = ['upstreams', 'video-protocols'];

// Loaded for what loading does (each module registers its plugin); nothing is taken from them.
for (const folder of PLUGIN_FOLDERS) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- found at run time, so not importable statically
  for (const file of pluginModules(join(__dirname, folder))) require(file);
}
