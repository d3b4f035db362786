/**
 * Everything the scaffold will write for a family, worked out before anything is written: the new files
 * from the templates and the new text of the files it adds entries to. What would clash with something
 * already there (a plugin, a simulator family, a kit test, fixtures, gateway.yaml entries, recipe lines)
 * is collected first, and any clash refuses the whole family. The family's docs are written too: its
 * section in docs/upstreams.md and its row in the README (family-docs.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Refusal } from './args';
import { docsClashes, README_FILE, UPSTREAMS_FILE, withReadmeRow, withUpstreamsSection } from './family-docs';
import { gatewayEntries } from './gateway-entries';
import { recipeClashes, RECIPE_FILE, SOURCES_FILE, withRecipeLines, withSourcesLine } from './markdown-edits';
import type { FamilyNames } from './names';
import { customRequest } from './templates/custom-request';
import { customReader } from './templates/custom-reader';
import { customFixtures } from './templates/fixtures-custom';
import { openAiFixtures } from './templates/fixtures-openai';
import type { NewFile } from './templates/files';
import { kitTest } from './templates/kit-test';
import { customPlugin } from './templates/plugin-custom';
import { openAiPlugin } from './templates/plugin-openai';
import { customSimulator } from './templates/simulator-custom';
import { openAiSimulator } from './templates/simulator-openai';
import { existingEntries, pricedBy, withEntries } from './yaml-edits';

/** A file the scaffold writes: `new` ones must not exist, `changed` ones get entries added. */
export interface FileChange extends NewFile {
  readonly kind: 'new' | 'changed';
}

const GATEWAY_FILES = ['gateway.yaml', 'deploy/gateway.yaml'] as const;

function newFiles(n: FamilyNames): NewFile[] {
  if (n.protocol === 'openai') {
    return [openAiPlugin(n), openAiSimulator(n), kitTest(n), ...openAiFixtures(n)];
  }
  return [
    customPlugin(n),
    customRequest(n),
    customReader(n),
    customSimulator(n),
    kitTest(n),
    ...customFixtures(n),
  ];
}

/** Paths that, present, mean the family (or another thing of its name) exists already. */
const takenPaths = (n: FamilyNames): string[] => [
  `plugins/upstreams/${n.name}.ts`,
  `plugins/upstreams/${n.name}`,
  `simulator/families/${n.name}.ts`,
  `test/kit/families/${n.name}.test.ts`,
  `test/kit/fixtures/${n.name}`,
  `test/fixtures/${n.name}`,
];

const read = (root: string, file: string): string => readFileSync(join(root, file), 'utf8');

/** The paths that exist, leaving out what is inside a folder already named. */
function existing(root: string, paths: readonly string[]): string[] {
  const found = [...new Set(paths)].filter((path) => existsSync(join(root, path)));
  return found.filter((path) => !found.some((folder) => path.startsWith(`${folder}/`)));
}

function clashes(root: string, n: FamilyNames, files: readonly NewFile[]): string[] {
  const entries = gatewayEntries(n);
  return [
    ...existing(root, [...takenPaths(n), ...files.map((f) => f.path)]).map((path) => `${path} exists`),
    ...GATEWAY_FILES.flatMap((file) => existingEntries(read(root, file), file, entries)),
    ...GATEWAY_FILES.flatMap((file) => pricedBy(read(root, file), file, n.models)),
    ...recipeClashes(read(root, RECIPE_FILE), n),
    ...docsClashes(read(root, UPSTREAMS_FILE), read(root, README_FILE), n),
  ];
}

/** The family's files and edits; throws Refusal, naming every clash, when any part of it exists. */
export function planFamily(root: string, n: FamilyNames): FileChange[] {
  const files = newFiles(n);
  const found = clashes(root, n, files);
  if (found.length > 0) {
    throw new Refusal(`family ${n.name} would clash with what is there:\n  ${found.join('\n  ')}`);
  }
  const entries = gatewayEntries(n);
  const changed = (path: string, edit: (text: string) => string): FileChange => ({
    path,
    text: edit(read(root, path)),
    kind: 'changed',
  });
  return [
    ...files.map((f): FileChange => ({ ...f, kind: 'new' })),
    ...GATEWAY_FILES.map((file) => changed(file, (text) => withEntries(text, file, entries))),
    changed(RECIPE_FILE, (text) => withRecipeLines(text, n)),
    changed(SOURCES_FILE, (text) => withSourcesLine(text, n)),
    changed(UPSTREAMS_FILE, (text) => withUpstreamsSection(text, n)),
    changed(README_FILE, (text) => withReadmeRow(text, n)),
  ];
}
