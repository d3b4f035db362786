/**
 * The scaffold's edits of files it does not own, on their own: entries are added to YAML without moving a
 * byte of what was there, and Markdown lines land where the tests and readers look for them. (That a whole
 * scaffolded family passes is test/cli/new-family.test.ts.)
 */
import t from 'tap';
import { parseFamilyArgs, Refusal } from '../../cli/new-family/args';
import {
  docsClashes,
  hasReadmeRow,
  hasUpstreamsSection,
  withReadmeRow,
  withUpstreamsSection,
} from '../../cli/new-family/family-docs';
import { withRecipeLines, withSourcesLine } from '../../cli/new-family/markdown-edits';
import { familyNames } from '../../cli/new-family/names';
import { pricedBy, withEntries, type YamlEntry } from '../../cli/new-family/yaml-edits';

const entry = (section: string, key: string, value: unknown, more: Partial<YamlEntry> = {}): YamlEntry => ({
  section,
  key,
  value,
  ...more,
});

t.test('YAML: an entry goes after the last one, at its indent, and nothing else moves', (t) => {
  const before = [
    '# head',
    'upstreams:',
    '  a: { plugin: a } # a comment',
    '    # a comment inside',
    '',
    '# about routes',
    'routes: {}',
    '#  example: { targets: [] }',
    'pipeline:',
    '  - auth: # trailing comment',
    '      x: 1',
    '',
  ].join('\n');
  const after = withEntries(before, 'gateway.yaml', [
    entry('upstreams', 'b-main', { plugin: 'b', base_url: '${B_BASE_URL:-http://127.0.0.1:9100/b}' }),
    entry('routes', 'b-1', { targets: [{ upstream: 'b-main' }] }, { comment: 'b', flowAt: [['targets', 0]] }),
    entry('prices', 'b-*', { input_per_mtok: 1 }, { flowAt: [[]] }),
  ]);
  t.equal(
    after,
    [
      '# head',
      'upstreams:',
      '  a: { plugin: a } # a comment',
      '  b-main:',
      '    plugin: b',
      '    base_url: ${B_BASE_URL:-http://127.0.0.1:9100/b}',
      '    # a comment inside',
      '',
      '# about routes',
      'routes:',
      '  # b',
      '  b-1:',
      '    targets:',
      '      - { upstream: b-main }',
      '#  example: { targets: [] }',
      'pipeline:',
      '  - auth: # trailing comment',
      '      x: 1',
      '',
      'prices:',
      '  b-*: { input_per_mtok: 1 }',
      '',
    ].join('\n'),
  );
  t.end();
});

t.test('YAML: a flow map with entries is left to its owner, and a bad file is refused', (t) => {
  t.throws(
    () => withEntries('routes: { a: 1 }\n', 'gateway.yaml', [entry('routes', 'b', 1)]),
    new Refusal('gateway.yaml: cannot add b to routes as it is written; add it by hand'),
  );
  t.throws(() => withEntries('a: [\n', 'gateway.yaml', [entry('routes', 'b', 1)]), Refusal);
  t.end();
});

t.test('Markdown: recipe lines close the gateway.env block; SOURCES lines gather in one section', (t) => {
  const n = familyNames(parseFamilyArgs(['model-z', '--base-path', '/api/v2/']));
  const page = 'intro\n\n```sh\n# gateway.env: x\nA_BASE_URL=https://a\n```\n\n```sh\nnpm start\n```\n';
  t.equal(
    withRecipeLines(page, n),
    'intro\n\n```sh\n# gateway.env: x\nA_BASE_URL=https://a\n' +
      "# MODEL_Z_* serve model-z-main: the vendor's address (a placeholder here) and key\n" +
      'MODEL_Z_BASE_URL=https://api.model-z.example/api/v2\nMODEL_Z_API_KEY=...\n```\n\n```sh\nnpm start\n```\n',
  );
  const once = withSourcesLine('# Sources\n\n| a |\n', n);
  const twice = withSourcesLine(`${once}\n## Later\n\ntext\n`, familyNames(parseFamilyArgs(['other'])));
  t.match(
    once,
    /^# Sources\n\n\| a \|\n\n## Placeholders written by `npm run new-family`\n\n[^#]+\n- `model-z\/`/,
  );
  t.match(
    twice,
    /- `model-z\/`[^\n]*\n- `other\/`[^\n]*\n\n## Later\n\ntext\n$/,
    'at the end of the section',
  );
  t.end();
});

t.test("Markdown: the family's section and table row in upstreams.md, its row in the README", (t) => {
  const n = familyNames(parseFamilyArgs(['model-z']));
  const upstreams = [
    '# Upstream wire formats',
    '',
    '| Family | Vendor protocol |',
    '| --- | --- |',
    '| [SSE framing](#sse) | every streaming upstream |',
    '| [`a`](#a) | A |',
    '| [Embeddings](#embeddings) | shared |',
    '',
    '<a id="a"></a>',
    '',
    '## a — A',
    '',
    'text',
    '',
    '<a id="embeddings"></a>',
    '',
    '## Embeddings',
    '',
  ].join('\n');
  const written = withUpstreamsSection(upstreams, n);
  t.match(
    written,
    /\| \[`a`\]\(#a\) \| A \|\n\| \[`model-z`\]\(#model-z\) \| OpenAI Chat Completions/,
    'row after the last family',
  );
  t.match(
    written,
    /## a — A\n\ntext\n\n<a id="model-z"><\/a>\n\n## model-z — [^\n]+\n[\s\S]+\n\n<a id="embeddings">/,
  );
  t.ok(hasUpstreamsSection(written, 'model-z'), 'the section the tests look for');
  t.notOk(hasUpstreamsSection(written, 'model'), 'a prefix of the name is another family');
  t.match(
    withUpstreamsSection(upstreams.replace('<a id="embeddings"></a>', ''), n),
    /## model-z — [^\n]+\n[\s\S]+\n$/,
    'at the end without shared sections',
  );

  const readme = [
    '# X',
    '',
    '## What it serves (this release)',
    '',
    '| Endpoint | Models |',
    '| --- | --- |',
    '| `POST /v1/chat/completions` (JSON and SSE) | `a-1` (plugin `a`) |',
    '| `POST /v1/messages` | `b-1` (plugin `b`) |',
    '',
    '## Architecture',
    '',
    '| not | this |',
    '',
  ].join('\n');
  const row = withReadmeRow(readme, n);
  t.match(
    row,
    /\(plugin `a`\) \|\n\| `POST \/v1\/chat\/completions` \(JSON and SSE\) \| `model-z-1`, `model-z-1-mini` \(plugin `model-z`, /,
  );
  t.ok(hasReadmeRow(row, 'model-z'));
  t.notOk(
    hasReadmeRow(readme.replace('| not |', '| plugin `model-z` |'), 'model-z'),
    'only the table of what it serves',
  );
  t.strictSame(docsClashes(written, row, n), [
    'docs/upstreams.md: a section ## model-z',
    'README.md: a row naming plugin `model-z`',
  ]);
  t.strictSame(docsClashes(upstreams, readme, n), []);
  t.throws(() => withReadmeRow('# X\n', n), Refusal);
  t.throws(() => withUpstreamsSection('# X\n', n), Refusal);
  t.end();
});

t.test('the command line: names, protocols and base paths are checked before anything is read', (t) => {
  t.strictSame(parseFamilyArgs(['modelz']), { name: 'modelz', protocol: 'openai', basePath: '/v1' });
  t.strictSame(parseFamilyArgs(['m-2', '--protocol', 'custom', '--base-path', '/']), {
    name: 'm-2',
    protocol: 'custom',
    basePath: '',
  });
  for (const bad of [
    [],
    ['a', 'b'],
    ['2model'],
    ['Model_Z'],
    ['modelz', '--protocol', 'grpc'],
    ['modelz', '--base-path', 'v1'],
    ['modelz', '--base-path', '/v1?x'],
    ['modelz', '--typo'],
  ]) {
    t.throws(() => parseFamilyArgs(bad), Refusal, bad.join(' '));
  }
  t.end();
});

t.test('YAML: a prices pattern that would bill the new models is named', (t) => {
  const text = ['prices:', '  modela-*: { input_per_mtok: 1 }', '  other-1: { input_per_mtok: 2 }', ''].join(
    '\n',
  );
  t.strictSame(pricedBy(text, 'gateway.yaml', ['modela-x-1', 'modela-x-1-mini']), [
    'gateway.yaml: prices.modela-* would price modela-x-1',
  ]);
  t.strictSame(pricedBy(text, 'gateway.yaml', ['acme-1', 'acme-1-mini']), [], 'none for a name of its own');
  t.end();
});
