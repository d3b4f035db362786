/**
 * The plugin kit stays small enough to learn: a few modules by concern, none exporting more than 45
 * names (values and types), counted by the TypeScript compiler over the kit's sources.
 */
import t from 'tap';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const KIT = join(process.cwd(), 'core', 'kit');
const MOST_NAMES = 45;

t.test('every kit module exports at most 45 names, and there are at least three', (t) => {
  const files = readdirSync(KIT)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(KIT, f));
  t.ok(files.length >= 3, `${files.length} kit modules`);
  const program = ts.createProgram(files, { strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  for (const file of files) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!);
    const names = module ? checker.getExportsOfModule(module).length : 0;
    t.ok(names > 0 && names <= MOST_NAMES, `${file.slice(process.cwd().length + 1)}: ${names} names`);
  }
  t.end();
});
