/**
 * The stages docs/plugins.md shows as examples are real: the docs quote these files, and a gateway serves
 * them. A stage that answers a request itself, and one that holds stream text back and rewrites it.
 */
import 'reflect-metadata';
import t, { type Test } from 'tap';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { MaintenanceStage } from '../../fixtures/stages/maintenance';
import { MaskWordsStage } from '../../fixtures/stages/mask-words';
import { startTestGateway } from '../../helpers/gateway';
import { parseSse, postJson, sseJson } from '../../helpers/http';

const ROOT = join(__dirname, '../../../..');

/** The class of a fixture file, from its decorator to its end: what the docs quote. */
async function classOf(file: string): Promise<string> {
  const text = await readFile(join(ROOT, 'test/fixtures/stages', file), 'utf8');
  return text.slice(text.indexOf('@definePlugin')).trim();
}

t.test('docs/plugins.md quotes the example stages as they are', async (t) => {
  const docs = await readFile(join(ROOT, 'docs/plugins.md'), 'utf8');
  for (const file of ['maintenance.ts', 'mask-words.ts'])
    t.ok(docs.includes(await classOf(file)), `${file} is quoted whole`);
});

/** A chat vendor streaming `pieces` as content chunks, then a finish chunk and `[DONE]`. */
async function chatVendor(t: Test, pieces: readonly string[]): Promise<string> {
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'modela-5.5', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of pieces) res.write(chunk({ content: piece }, null));
    res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test('the example stages at work', async (t) => {
  t.ok(MaintenanceStage && MaskWordsStage, 'registered by their manifests');
  const vendor = await chatVendor(t, ['One secret ', 'here. ', 'Another ', 'secret there.']);
  const gw = await startTestGateway(t, (doc) => {
    (doc.pipeline as unknown[]).push('maintenance', 'mask-words');
    const upstreams = doc.upstreams as Record<string, { base_url: string }>;
    upstreams['modela-main']!.base_url = `${vendor}/v1`;
  });
  const before = gw.sim.log.list().length;
  const probe = await postJson(
    `${gw.url}/v1/chat/completions`,
    { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] },
    gw.key,
    { 'x-maintenance-probe': '1' },
  );
  t.equal(probe.status, 200);
  t.match(probe.body, { model: 'modela-5.5', choices: [{ message: { content: 'The gateway is up.' } }] });
  t.equal(gw.sim.log.list().length, before, 'answered without the upstream');

  const res = await postJson(
    `${gw.url}/v1/chat/completions`,
    { model: 'modela-5.5', stream: true, messages: [{ role: 'user', content: 'Say it.' }] },
    gw.key,
  );
  t.equal(res.status, 200);
  const texts = sseJson<{ choices: { delta: { content?: string } }[] }>(res.text)
    .map((c) => c.choices[0]?.delta.content)
    .filter((c) => c !== undefined && c !== '');
  t.strictSame(
    texts,
    ['One ****** here. ', 'Another ****** there.'],
    'held until each sentence ended, masked',
  );
  t.equal(parseSse(res.text).at(-1)?.data, '[DONE]');
});
