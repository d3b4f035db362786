/** Every shipped upstream plugin runs the kit: a family is not done until it lists its golden answers. */
import 'reflect-metadata';
import '../helpers/load-plugins';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { definedPluginsOf } from '../../core/plugins/define-plugin';

const names = [...definedPluginsOf('upstream').keys()];
t.ok(names.length >= 7, `found the shipped plugins: ${names.join(', ')}`);
for (const name of names) {
  t.ok(
    existsSync(join(__dirname, 'families', `${name}.test.js`)),
    `${name}: test/kit/families/${name}.test.ts`,
  );
}
