/**
 * The access and usage lines' serializers are compiled by `npm run build`, so a running gateway loads
 * fast-json-stringify's runtime only, never its schema compiler and ajv; and what the build wrote is what
 * the library compiles from the shapes as they are now.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type fastJson from 'fast-json-stringify';
import t from 'tap';
import { startTestGateway } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';
import { recordingLogger } from '../../helpers/logs';
import { eventually } from '../../helpers/wait';

/** The repository: this file runs as dist/test/core/observability/line-serializers.test.js. */
const ROOT = join(__dirname, '..', '..', '..', '..');

/** What scripts/build-serializers.js offers beside writing: each serializer's schema and its file. */
interface BuildScript {
  readonly serializers: () => { readonly schema: object; readonly file: string }[];
}

/** Modules of the library's compile path: its entry point, its validator, and the ajv it brings. */
const COMPILER = /fast-json-stringify[/\\](index\.js|lib[/\\]validator\.js|node_modules[/\\]ajv[/\\])/;

void t.test('a gateway writes its access and usage lines without the schema compiler', async (t) => {
  const { logger, lines } = recordingLogger('info');
  const gw = await startTestGateway(t, () => undefined, { logger });
  const chat = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };
  const res = await postJson(`${gw.url}/v1/chat/completions`, chat, gw.key, { 'x-request-id': 'line-1' });
  t.equal(res.status, 200);
  await eventually(() => lines.some((l) => l.msg === 'request' && l.request_id === 'line-1'));
  const loaded = Object.keys(require.cache);
  t.ok(
    loaded.some((m) => m.endsWith(join('lib', 'serializer.js'))),
    "the library's runtime is loaded",
  );
  t.strictSame(
    loaded.filter((m) => COMPILER.test(m)),
    [],
    'nothing of its compile path',
  );
});

void t.test('the built serializers are what the library compiles from the shapes now', async (t) => {
  // Loaded here, after the check above: this test file runs in a process of its own.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const build = require('fast-json-stringify') as typeof fastJson;
  const { serializers } = require(join(ROOT, 'scripts', 'build-serializers.js')) as BuildScript;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const built = serializers();
  t.ok(built.length > 0, 'the build writes serializers');
  for (const { schema, file } of built) {
    t.equal(await readFile(file, 'utf8'), build(schema, { mode: 'standalone' }), file);
  }
});
