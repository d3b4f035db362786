/** Every shipped upstream plugin runs the kit: a family is not done until it lists its golden answers. */
import 'reflect-metadata';
import '../helpers/load-plugins';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { definedPluginsOf } from '../../core/plugins/define-plugin';

const names = [...definedPluginsOf('upstream').keys()];
t.ok(names.length >= 7, `found the shipped plugins: ${names.join(', ')}`);
const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'kit', 'fixtures');
for (const name of names) {
  t.ok(
    existsSync(join(__dirname, 'families', `${name}.test.js`)),
    `${name} has no kit test: add test/kit/families/${name}.test.ts (see docs/plugins.md, Test a family with the plugin kit)`,
  );
  t.ok(
    existsSync(join(FIXTURES, name)),
    `${name} has no recorded answers: add test/kit/fixtures/${name}/ with the vendor's own bodies`,
  );
}
