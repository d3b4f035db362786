/**
 * Every shipped upstream plugin is documented where a reader looks for it: a section of its own in
 * docs/upstreams.md and a row of the README's table of what the gateway serves. The checks are the ones
 * `npm run new-family` writes for (cli/new-family/family-docs.ts).
 */
import 'reflect-metadata';
import '../helpers/load-plugins';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { hasReadmeRow, hasUpstreamsSection } from '../../cli/new-family/family-docs';
import { definedPluginsOf } from '../../core/plugins/define-plugin';

const ROOT = join(__dirname, '..', '..', '..');
const page = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

const names = [...definedPluginsOf('upstream').keys()];
t.ok(names.length >= 7, `found the shipped plugins: ${names.join(', ')}`);

const upstreams = page('docs/upstreams.md');
t.strictSame(
  names.filter((name) => !hasUpstreamsSection(upstreams, name)),
  [],
  'families without a section `## <name> — <what it speaks>` in docs/upstreams.md (add one, as the others have)',
);

const readme = page('README.md');
t.strictSame(
  names.filter((name) => !hasReadmeRow(readme, name)),
  [],
  "families without a row naming `plugin `<name>`` in README.md's table under ## What it serves",
);
