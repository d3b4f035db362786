/** Loads the shipped plugins (plugins/ on disk, as `npm start` does) for a test that imports this. */
import 'reflect-metadata';
import { join } from 'node:path';
import { loadPlugins } from '../../core/plugins/plugin-discovery';

/** Every shipped plugin, as a gateway is given them by default. */
export const shippedPlugins = loadPlugins(join(__dirname, '..', '..', 'plugins'));
