/**
 * The family's place in the two pages a reader looks for it in: its section in docs/upstreams.md (an
 * anchor, a `## <name> — …` heading, and a row of the page's table of families) and its row in the
 * README's table of what the gateway serves, where every family is named as `plugin \`<name>\``. The
 * tests that every family is documented (test/kit/every-family-documented.test.ts) read the pages with
 * the same two checks, so the scaffold and the tests cannot disagree on what "documented" means.
 */
import { Refusal } from './args';
import { type FamilyNames, vendorBaseUrl } from './names';

export const UPSTREAMS_FILE = 'docs/upstreams.md';
export const README_FILE = 'README.md';

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether docs/upstreams.md has the family's section: a heading `## <name>`, alone or before ` — `. */
export const hasUpstreamsSection = (page: string, name: string): boolean =>
  new RegExp(`^## ${escaped(name)}(?: — .*)?$`, 'm').test(page);

/** A row of the README's table of what the gateway serves, and the offset just after it. */
interface Row {
  readonly text: string;
  readonly end: number;
}

/** The rows of the table in the README's `## What it serves` section, in order. */
function servedRows(readme: string): Row[] {
  const start = readme.search(/^## What it serves/m);
  if (start < 0) return [];
  const rows: Row[] = [];
  let at = start; // where the line starts
  for (const [i, line] of readme.slice(start).split('\n').entries()) {
    if (i > 0 && line.startsWith('## ')) break;
    if (line.startsWith('|')) rows.push({ text: line, end: at + line.length });
    at += line.length + 1;
  }
  return rows;
}

/** Whether a row of the README's table names the family as `plugin \`<name>\``. */
export const hasReadmeRow = (readme: string, name: string): boolean =>
  servedRows(readme).some((row) => row.text.includes(`plugin \`${name}\``));

/** What is there already under the family's name: a family of that name was documented before. */
export function docsClashes(upstreams: string, readme: string, n: FamilyNames): string[] {
  return [
    ...(hasUpstreamsSection(upstreams, n.name) ? [`${UPSTREAMS_FILE}: a section ## ${n.name}`] : []),
    ...(hasReadmeRow(readme, n.name) ? [`${README_FILE}: a row naming plugin \`${n.name}\``] : []),
  ];
}

const CHAT_PATH = '`POST /v1/chat/completions`';

function readmeRow(n: FamilyNames): string {
  const speaks =
    n.protocol === 'openai' ? 'OpenAI protocol' : 'a protocol of its own, translated from chat completions';
  const models = n.models.map((m) => `\`${m}\``).join(', ');
  return `| ${CHAT_PATH} (JSON and SSE) | ${models} (plugin \`${n.name}\`, ${speaks}; placeholders written by \`npm run new-family\`) |`;
}

/** The README with the family's row after the table's last chat completions row (its last row without one). */
export function withReadmeRow(readme: string, n: FamilyNames): string {
  const rows = servedRows(readme);
  if (rows.length === 0) throw new Refusal(`${README_FILE} has no table under ## What it serves`);
  const chat = rows.filter((row) => row.text.startsWith(`| ${CHAT_PATH}`));
  const at = (chat.at(-1) ?? rows.at(-1)!).end;
  return `${readme.slice(0, at)}\n${readmeRow(n)}${readme.slice(at)}`;
}

/** The row of docs/upstreams.md's table of families: name, protocol, plugin, simulator. */
function tableRow(n: FamilyNames): string {
  const protocol = n.protocol === 'openai' ? 'OpenAI Chat Completions' : 'a protocol of its own';
  return `| [\`${n.name}\`](#${n.name}) | ${protocol} (placeholder) | \`plugins/upstreams/${n.name}/\` | \`simulator/families/${n.name}.ts\` |`;
}

/** A family's row in the table: its first cell links to its section by name. */
const FAMILY_ROW = /^\| \[`[a-z0-9-]+`\]\(#[a-z0-9-]+\) +\|.*$/gm;

function withTableRow(page: string, n: FamilyNames): string {
  const last = [...page.matchAll(FAMILY_ROW)].at(-1);
  if (!last) throw new Refusal(`${UPSTREAMS_FILE} has no table of families (rows | [\`name\`](#name) |)`);
  const at = last.index + last[0].length;
  return `${page.slice(0, at)}\n${tableRow(n)}${page.slice(at)}`;
}

function openAiSection(n: FamilyNames): string[] {
  return [
    `**Endpoint.** \`POST {base_url}/chat/completions\` (\`chat_path\`; \`base_url\` e.g.`,
    `\`${vendorBaseUrl(n)}\`; simulator \`/${n.name}${n.basePath}/chat/completions\`). **Auth**`,
    '`Authorization: Bearer <key>`.',
    '',
    `**Request fields.** OpenAI's chat shape, as the table in \`plugins/upstreams/${n.name}/index.ts\` takes`,
    'it, with no renames. The family relays: a field the table does not list reaches the vendor unchanged.',
    'Ceilings the plugin declares: 4,096 output tokens, `n` 1.',
    '',
    "**Usage and stream.** OpenAI's `usage`; in a stream only when asked (`stream_options.include_usage`),",
    'which the gateway asks for. Ends with `data: [DONE]`.',
    '',
    '**Errors.** OpenAI\'s `{"error":{"message", "type", "param", "code"}}`.',
  ];
}

function customSection(n: FamilyNames): string[] {
  return [
    `**Endpoint.** \`POST {base_url}/generate\` (\`generate_path\`; \`base_url\` e.g. \`${vendorBaseUrl(n)}\`;`,
    `simulator \`/${n.name}${n.basePath}/generate\`). **Auth** \`Authorization: Bearer <key>\`.`,
    '',
    "**Request.** The client's chat completions body translated to",
    `\`{model, input: [{role, text}], max_output_tokens, stream}\` (\`plugins/upstreams/${n.name}/request.ts\`).`,
    'The family translates: a field its table does not list has no counterpart here and is refused with',
    '400 `unsupported_field` naming it. Ceilings the plugin declares: 4,096 output tokens, `n` 1.',
    '',
    '**Response.** `{id, output_text, stop_reason, usage: {input_tokens, output_tokens}}`; a stream of',
    '`event: delta` (`{text}`) and one `event: done` (`{stop_reason, usage}`), or `event: error`',
    `(\`{code, message}\`); \`plugins/upstreams/${n.name}/reader.ts\` gives the client OpenAI's shapes.`,
    '',
    '**Errors.** A flat `{"code", "message"}`, which the gateway turns into the contract\'s error body.',
  ];
}

function section(n: FamilyNames): string {
  const title = n.protocol === 'openai' ? 'OpenAI Chat Completions' : 'a protocol of its own';
  return [
    `<a id="${n.name}"></a>`,
    '',
    `## ${n.name} — ${title} (placeholder)`,
    '',
    "Written by `npm run new-family`: every fact here stands for the vendor's own. Replace each with what",
    "the vendor's API reference says, as the sections above do.",
    '',
    ...(n.protocol === 'openai' ? openAiSection(n) : customSection(n)),
    '',
    '',
  ].join('\n');
}

/** The sections after the families', about what several share; the family's goes before the first. */
const AFTER_FAMILIES = '<a id="embeddings"></a>';

/** docs/upstreams.md with the family's row in its table and its section after the other families'. */
export function withUpstreamsSection(page: string, n: FamilyNames): string {
  const withRow = withTableRow(page, n);
  const at = withRow.indexOf(AFTER_FAMILIES);
  if (at < 0) return `${withRow.trimEnd()}\n\n${section(n).trimEnd()}\n`;
  return `${withRow.slice(0, at)}${section(n)}${withRow.slice(at)}`;
}
