/**
 * The family's lines in two Markdown files: its variables in the `gateway.env` recipe of
 * docs/configuration.md (test/config/real-vendors-recipe.test.ts loads gateway.yaml with that block and
 * wants every upstream pointed at an https vendor), and a line in test/kit/fixtures/SOURCES.md saying its
 * answers are placeholders.
 */
import { Refusal } from './args';
import { type FamilyNames, vendorBaseUrl } from './names';

/** The recipe block as the recipe test finds it; its closing fence is where the lines go. */
const RECIPE = /```sh\n# gateway\.env[^\n]*\n([\s\S]*?)```/;

export const RECIPE_FILE = 'docs/configuration.md';
export const SOURCES_FILE = 'test/kit/fixtures/SOURCES.md';

/** The family's variables already in the recipe: a family of this name was there before. */
export function recipeClashes(page: string, n: FamilyNames): string[] {
  const block = RECIPE.exec(page)?.[1] ?? '';
  return [`${n.env}_BASE_URL`, `${n.env}_API_KEY`]
    .filter((name) => new RegExp(`^${name}=`, 'm').test(block))
    .map((name) => `${RECIPE_FILE}: ${name}`);
}

export function withRecipeLines(page: string, n: FamilyNames): string {
  const match = RECIPE.exec(page);
  if (!match)
    throw new Refusal(`${RECIPE_FILE} has no gateway.env block (a sh block starting # gateway.env)`);
  const lines = [
    `# ${n.env}_* serve ${n.upstream}: the vendor's address (a placeholder here) and key`,
    `${n.env}_BASE_URL=${vendorBaseUrl(n)}`,
    `${n.env}_API_KEY=...`,
  ];
  const at = match.index + match[0].length - '```'.length;
  return `${page.slice(0, at)}${lines.join('\n')}\n${page.slice(at)}`;
}

const PLACEHOLDER_SECTION = '## Placeholders written by `npm run new-family`';
const SECTION_INTRO = [
  PLACEHOLDER_SECTION,
  '',
  "None of these is a vendor's answer: each stands in until the family's answers are recorded. Replace",
  'each file with a recording (kept in `test/fixtures/<family>/`, provenance in `test/fixtures/SOURCES.md`) or',
  "with one derived from a recording, list it in a table above, and drop the family's line here.",
  '',
].join('\n');

function sourcesLine(n: FamilyNames): string {
  const folder = `\`${n.name}/\``;
  return n.protocol === 'openai'
    ? `- ${folder}: written after OpenAI's documented chat completions shapes, ids masked with \`x\`.`
    : `- ${folder}: answers in the placeholder protocol of \`plugins/upstreams/${n.name}/\`, and in ` +
        `\`${n.name}/client/\` what the client must get for each, in OpenAI's chat completions shapes.`;
}

/** SOURCES.md with the family's line at the end of the placeholders' section (made when missing). */
export function withSourcesLine(page: string, n: FamilyNames): string {
  const line = `${sourcesLine(n)}\n`;
  const start = page.indexOf(PLACEHOLDER_SECTION);
  if (start < 0) return `${page.trimEnd()}\n\n${SECTION_INTRO}\n${line}`;
  const next = page.indexOf('\n## ', start + PLACEHOLDER_SECTION.length);
  const end = next < 0 ? page.length : next + 1;
  const section = page.slice(0, end).trimEnd();
  return `${section}\n${line}${next < 0 ? '' : `\n${page.slice(end)}`}`;
}
