/**
 * `npm run new-family -- <name> [--protocol openai|custom] [--base-path /v1]`: writes everything a new
 * upstream family needs to be served, simulated, configured and tested (its plugin, its simulator family,
 * its kit test and placeholder answers, its gateway.yaml and deploy/gateway.yaml entries, its recipe
 * variables, its section in docs/upstreams.md and its row in the README), and nothing else, so that
 * `npm test` passes with it as written. Exit status 1, having written nothing, when the call is wrong or
 * the family (or part of it) exists.
 */
import { join } from 'node:path';
import { parseFamilyArgs, Refusal } from './args';
import { familyNames, type FamilyNames } from './names';
import { planFamily, type FileChange } from './plan';
import { formatChanges, writeChanges } from './writer';

/** The repository this CLI was compiled in (dist/cli/new-family/ → the root). */
const ROOT = join(__dirname, '..', '..', '..');

const print = (line = ''): boolean => process.stdout.write(`${line}\n`);

function nextSteps(n: FamilyNames): string[] {
  const replace =
    n.protocol === 'openai'
      ? `plugins/upstreams/${n.name}/index.ts: the vendor's models, fields, renames, stream usage and limits`
      : `plugins/upstreams/${n.name}/ and simulator/families/${n.name}.ts: the vendor's protocol, models and limits`;
  return [
    `replace ${replace}`,
    `replace the placeholder answers in test/kit/fixtures/${n.name}/ with the vendor's recordings ` +
      `(test/kit/fixtures/SOURCES.md), and the figures test/kit/families/${n.name}.test.ts meters them as`,
    `set ${n.name}'s prices in gateway.yaml and deploy/gateway.yaml (placeholder figures now)`,
    `replace ${n.name}'s placeholder section in docs/upstreams.md and its row in README.md with the vendor's facts`,
    `npm run test:files -- test/kit/families/${n.name}.test.ts while you work on it; npm test when done`,
  ];
}

function report(n: FamilyNames, changes: readonly FileChange[], warning: string | undefined): void {
  print(`new family ${n.name} (${n.protocol}, API at ${n.basePath || '/'}):`);
  for (const change of changes) print(`  ${change.kind === 'new' ? 'wrote  ' : 'changed'}  ${change.path}`);
  if (warning) print(`warning: ${warning}`);
  print();
  print('next:');
  nextSteps(n).forEach((step, i) => print(`  ${i + 1}. ${step}`));
}

function main(argv: readonly string[]): number {
  try {
    const names = familyNames(parseFamilyArgs(argv));
    const changes = planFamily(ROOT, names);
    writeChanges(ROOT, changes);
    report(names, changes, formatChanges(ROOT, changes));
    return 0;
  } catch (error) {
    const message = error instanceof Refusal ? error.message : String(error);
    process.stderr.write(`new-family: ${message}\n`);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
