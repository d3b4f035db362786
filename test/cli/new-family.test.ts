/**
 * `npm run new-family`: a family as the scaffold writes it passes as it stands. In a copy of this working
 * tree (never the checkout itself) the scaffold refuses a taken name, a malformed one and one another
 * family's prices would bill, writing nothing,
 * then writes an OpenAI-compatible family (`modelz`) and a custom-protocol one (`modely --protocol
 * custom --base-path /api`), each exactly the files it promises (its docs among them: a section in
 * docs/upstreams.md, a row in the README); then the copy passes `npm run lint` and
 * the tests that enumerate families or read gateway.yaml, with the two new kit tests, and its shipped
 * gateway.yaml serves both families from the bundled simulator: the relaying one passes a field no table
 * lists to the vendor, the translating one refuses it.
 *
 * One build of the copy serves every run, the fastest honest order: the scaffold runs from this
 * checkout's compiled CLI (built from the same sources by the `npm test` that runs this file), copied into
 * the copy's dist/ so that it writes to the copy; the copy is then built once, with both families in it,
 * while its lint runs beside the build (the lint reads sources only).
 */
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import OpenAI from 'openai';
import { hasReadmeRow, hasUpstreamsSection } from '../../cli/new-family/family-docs';
import { tempDir } from '../helpers/gateway';
import { GATEWAY_LISTENING, START_TIMEOUT_MS } from '../helpers/process';
import {
  changedFiles,
  commitAll,
  copyEnv,
  failuresOf,
  makeCopy,
  ROOT,
  run,
  tail,
  workingTreeFiles,
} from './repo-copy';

// The build takes about 40 s on two cores, the lint about 90 s beside it, the tests about 80 s (215 s in
// all on a quiet machine): room for a busy one, where the suite runs another file beside this one and
// other work holds a core (a build took 234 s there).
t.setTimeout(900_000);

const files = workingTreeFiles() ?? [];
const NOT_GIT = files.length > 0 ? {} : { skip: 'not a git checkout: no working tree to copy' };

/**
 * `base`, or `baseb`, `basec`… when the working tree has a family of that name already (as it does after
 * the documented `npm run new-family -- modelz`). Not `base-b`: the existing family's `base-*` prices
 * would match its models, and the scaffold rightly refuses that.
 */
function freeName(base: string): string {
  const taken = (name: string) =>
    files.some((f) => f.startsWith(`plugins/upstreams/${name}/`) || f === `plugins/upstreams/${name}.ts`);
  for (let i = 0; ; i++) {
    const name = i === 0 ? base : `${base}${String.fromCharCode(97 + i)}`;
    if (!taken(name)) return name;
  }
}
const OPENAI = freeName('modelz');
const CUSTOM = freeName('modely');

/** What each call promises to add entries to (`changed`) and to write (`new`), and nothing else. */
const EDITED = [
  'gateway.yaml',
  'deploy/gateway.yaml',
  'docs/configuration.md',
  'test/kit/fixtures/SOURCES.md',
  'docs/upstreams.md',
  'README.md',
];
const ERRORS = ['error-400.json', 'error-429.json', 'error-500.json'];
const openAiFiles = (name: string): string[] => [
  `plugins/upstreams/${name}/index.ts`,
  `simulator/families/${name}.ts`,
  `test/kit/families/${name}.test.ts`,
  ...['json.json', 'stream.sse', 'stream-cut.sse', ...ERRORS].map((f) => `test/kit/fixtures/${name}/${f}`),
];
const customFiles = (name: string): string[] => [
  ...['index.ts', 'request.ts', 'reader.ts'].map((f) => `plugins/upstreams/${name}/${f}`),
  `simulator/families/${name}.ts`,
  `test/kit/families/${name}.test.ts`,
  ...['json.json', 'stream.sse', 'stream-cut.sse', 'stream-error.sse', ...ERRORS].map(
    (f) => `test/kit/fixtures/${name}/${f}`,
  ),
  ...['json.json', 'stream.sse', 'stream-usage.sse', 'stream-cut.sse', 'stream-error.sse', ...ERRORS].map(
    (f) => `test/kit/fixtures/${name}/client/${f}`,
  ),
];
const CALLS = [
  { name: OPENAI, args: [], promised: openAiFiles(OPENAI) },
  { name: CUSTOM, args: ['--protocol', 'custom', '--base-path', '/api'], promised: customFiles(CUSTOM) },
];
const changes = (promised: readonly string[]): string[] =>
  [...promised.map((f) => `new ${f}`), ...EDITED.map((f) => `changed ${f}`)].sort();

/** The tests a new family can fail: those that enumerate families or read gateway.yaml, and its kit tests. */
const TESTS = [
  'dist/test/kit/every-family.test.js',
  'dist/test/kit/every-family-documented.test.js',
  'dist/test/kit/fixtures.test.js',
  `dist/test/kit/families/${OPENAI}.test.js`,
  `dist/test/kit/families/${CUSTOM}.test.js`,
  'dist/test/config',
  'dist/test/core/main.test.js',
  'dist/test/core/main-messages.test.js',
  'dist/test/core/plugins/plugin-discovery.test.js',
  'dist/test/core/upstream/simulator-leftovers.test.js',
  'dist/test/packaging/deployment-files.test.js',
];

t.test('a scaffolded family passes lint and the family tests as written', NOT_GIT, async (t) => {
  const copy = await tempDir(t, 'new-family-');
  makeCopy(copy, files);
  // The CLI writes to the repository it is compiled in: the copy (whose build later replaces this dist).
  cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
  const scaffold = (...args: string[]) =>
    run(copy, process.execPath, [join(copy, 'dist', 'cli', 'new-family', 'main.js'), ...args]);

  await t.test('a taken or malformed name is refused, and nothing is written', async (t) => {
    const taken = await scaffold('modela');
    t.equal(taken.code, 1, 'modela exists: exit 1');
    t.match(taken.output, /family modela would clash[\s\S]*plugins\/upstreams\/modela\.ts exists/);
    const priced = await scaffold('modela-x');
    t.equal(priced.code, 1, "modela-x: exit 1, modela's prices would bill it");
    t.match(priced.output, /gateway\.yaml: prices\.modela-\* would price modela-x-1/);
    const malformed = await scaffold('Model_Z');
    t.equal(malformed.code, 1, 'Model_Z: exit 1');
    t.match(malformed.output, /'Model_Z' is not a family name: use lowercase letters, digits and hyphens/);
    t.strictSame(changedFiles(copy), [], 'nothing written');
  });

  for (const call of CALLS) {
    await t.test(`${[call.name, ...call.args].join(' ')}: exactly the files promised`, async (t) => {
      const made = await scaffold(call.name, ...call.args);
      t.equal(made.code, 0, 'exit 0', { output: made.output });
      t.strictSame(changedFiles(copy), changes(call.promised));
      for (const file of [...call.promised, ...EDITED]) t.match(made.output, file, `it names ${file}`);
      t.match(made.output, /next:[\s\S]*npm test/, 'and the next steps');
      const page = (file: string) => readFileSync(join(copy, file), 'utf8');
      t.ok(hasUpstreamsSection(page('docs/upstreams.md'), call.name), 'a section in docs/upstreams.md');
      t.match(
        page('docs/upstreams.md'),
        new RegExp(`^\\| \\[\`${call.name}\`\\]\\(#${call.name}\\) +\\|`, 'm'),
        'a row of its table of families',
      );
      t.ok(hasReadmeRow(page('README.md'), call.name), "a row in the README's table of what it serves");
      t.match(
        made.output,
        `npm run test:files -- test/kit/families/${call.name}.test.ts`,
        'among them how to run its own tests',
      );
      commitAll(copy, call.name);
    });
  }

  const started = performance.now();
  const took = () => `${Math.round((performance.now() - started) / 1000)} s in`;
  const lint = run(copy, 'npm', ['run', '-s', 'lint']);
  const build = await run(copy, 'npm', ['run', '-s', 'build']);
  t.equal(build.code, 0, `the copy builds (${took()})`, { output: tail(build.output) });
  if (build.code === 0) {
    const tests = await run(copy, 'npx', ['tap', ...TESTS]);
    t.equal(tests.code, 0, `the family tests pass in the copy (${took()})`, {
      output: failuresOf(tests.output),
    });
    await t.test('the shipped gateway.yaml serves both families from the simulator', (t) => served(t, copy));
  }
  const linted = await lint;
  t.equal(linted.code, 0, `npm run lint passes in the copy (${took()})`, { output: tail(linted.output) });
});

const ask = [{ role: 'user' as const, content: 'hi' }];

/**
 * The copy's gateway on its shipped gateway.yaml, asked for each new family's first model through the SDK.
 * Every listener on a port the system picks (the simulator's too, which the upstreams follow), the
 * gateway's read from its start-up line.
 */
async function served(t: Test, copy: string): Promise<void> {
  const env = copyEnv({
    GATEWAY_CONFIG: join(copy, 'gateway.yaml'),
    GATEWAY_DATA_DIR: await tempDir(t, 'new-family-data-'),
    GATEWAY_HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_PORT: '0',
    SIMULATOR_PORT: '0',
  });
  const gateway = spawn(process.execPath, [join(copy, 'dist', 'core', 'main.js')], { env });
  t.teardown(() => void gateway.kill('SIGKILL'));
  let out = '';
  gateway.stdout.on('data', (d: Buffer) => (out += d.toString()));
  gateway.stderr.on('data', (d: Buffer) => (out += d.toString()));
  // The key comes last: main.ts writes the start-up lines out just before it.
  const { key, url } = await new Promise<{ key: string; url: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not start: ${out}`)), START_TIMEOUT_MS);
    gateway.on('close', () => reject(new Error(`the gateway stopped: ${out}`)));
    gateway.stdout.on('data', () => {
      const found = /^(sk-[A-Za-z0-9_-]{43})$/m.exec(out)?.[1];
      const listening = GATEWAY_LISTENING.exec(out)?.[1];
      if (!found || !listening) return;
      clearTimeout(timer);
      resolve({ key: found, url: listening });
    });
  });
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 });
  await unlistedFields(t, url, key);
  for (const model of [`${OPENAI}-1`, `${CUSTOM}-1`]) {
    const answer = await client.chat.completions.create({ model, messages: ask });
    const text = answer.choices[0]?.message.content ?? '';
    t.ok(text.length > 0, `${model}: an answer`);
    t.match(answer, { choices: [{ finish_reason: 'stop' }], usage: { completion_tokens: Number } });
    const capped = await client.chat.completions.create({ model, messages: ask, max_tokens: 3 });
    t.equal(capped.choices[0]?.finish_reason, 'length', `${model}: max_tokens ends it as length`);
    const stream = await client.chat.completions.create({
      model,
      messages: ask,
      stream: true,
      stream_options: { include_usage: true },
    });
    let streamed = '';
    let usage: unknown;
    for await (const chunk of stream) {
      for (const choice of chunk.choices) streamed += choice.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    t.equal(streamed, text, `${model}: the same answer streamed`);
    t.match(
      usage,
      { prompt_tokens: Number, completion_tokens: Number },
      `${model}: with the usage asked for`,
    );
  }
}

/**
 * A field no table lists (docs/contract.md): the relaying family passes it to the simulator unchanged
 * (its `echo` control answers with the body it received), the translating one refuses it with the
 * contract's 400 body naming it.
 */
async function unlistedFields(t: Test, url: string, key: string): Promise<void> {
  const post = (model: string, content: string) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content }], vendor_flag: { on: true } }),
    });
  const relayed = await post(`${OPENAI}-1`, 'hi #sim echo');
  t.equal(relayed.status, 200, `${OPENAI}: an unlisted field is relayed`);
  const echoed = (await relayed.json()) as { choices: { message: { content: string } }[] };
  const received = JSON.parse(echoed.choices[0]?.message.content ?? '{}') as { body?: unknown };
  t.match(received.body, { vendor_flag: { on: true } }, `${OPENAI}: the simulator received it unchanged`);
  const refused = await post(`${CUSTOM}-1`, 'hi');
  t.equal(refused.status, 400, `${CUSTOM}: an unlisted field is refused`);
  t.strictSame(await refused.json(), {
    error: {
      code: 'unsupported_field',
      message: `field 'vendor_flag' is not supported by model '${CUSTOM}-1'`,
      type: 'error',
    },
  });
}
