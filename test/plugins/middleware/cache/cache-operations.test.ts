/**
 * The cache as operators run it: a reload changes its rules and keeps its entries, a bad cache section is
 * refused and the running one stays, the memory bound evicts and counts it, a traced request's span says
 * what the cache did, and without the stage `DELETE /admin/cache` is not there.
 */
import 'reflect-metadata';
import t from 'tap';
import { startFileGateway } from '../../../helpers/reload';
import { startTestGateway } from '../../../helpers/gateway';
import { postJson } from '../../../helpers/http';
import { startOtlpReceiver } from '../../../helpers/otlp-receiver';
import { freshPrompt, withCache } from './cache-helpers';

type Doc = Record<string, unknown>;

/** The cache section of a document's pipeline, to change in place. */
const cacheOf = (doc: Doc): Record<string, unknown> =>
  (doc.pipeline as unknown[]).flatMap((s) =>
    typeof s === 'object' && s !== null && 'cache' in s
      ? [(s as { cache: Record<string, unknown> }).cache]
      : [],
  )[0]!;

const ask = (url: string, key: string, content: string, model = 'modela-5.5') =>
  postJson(`${url}/v1/chat/completions`, { model, messages: [{ role: 'user', content }] }, key);

t.test('a reload changes the rules and keeps the entries; a bad section is refused', async (t) => {
  const gw = await startFileGateway(t, (doc) => withCache()(doc));
  const prompt = freshPrompt();
  await ask(gw.url, gw.key, prompt);
  t.equal((await ask(gw.url, gw.key, prompt)).headers.get('x-gateway-cache'), 'hit');
  const doc = gw.doc();
  cacheOf(doc).models = ['modelc-*'];
  await gw.write(doc);
  t.match((await gw.admin('POST', '/admin/reload')).body, { applied: true });
  t.equal(
    (await ask(gw.url, gw.key, prompt)).headers.get('x-gateway-cache'),
    'bypass',
    'modela is no longer cached',
  );
  cacheOf(doc).models = ['*'];
  await gw.write(doc);
  t.match((await gw.admin('POST', '/admin/reload')).body, { applied: true });
  t.equal(
    (await ask(gw.url, gw.key, prompt)).headers.get('x-gateway-cache'),
    'hit',
    'the entry outlived both reloads',
  );
  cacheOf(doc).scope = 'everyone';
  await gw.write(doc);
  const refused = await gw.admin('POST', '/admin/reload');
  t.equal(refused.status, 422);
  t.match(refused.body.error, { code: 'config_invalid', message: /pipeline\[\d\]\.cache\.scope/ });
  t.equal(
    (await ask(gw.url, gw.key, prompt)).headers.get('x-gateway-cache'),
    'hit',
    'the running cache stays',
  );
});

t.test('the memory bound evicts the least recently used, and counts it', async (t) => {
  const gw = await startTestGateway(t, withCache({ memory: '4kb', max_entry_size: '2kb' }));
  const prompts = [freshPrompt(), freshPrompt(), freshPrompt(), freshPrompt(), freshPrompt(), freshPrompt()];
  for (const prompt of prompts) await ask(gw.url, gw.key, prompt);
  const metrics = await (await fetch(`${gw.gateway.adminUrl}/metrics`)).text();
  const evicted = Number(/gateway_cache_evictions_total (\d+)/.exec(metrics)?.[1]);
  const bytes = Number(/gateway_cache_bytes (\d+)/.exec(metrics)?.[1]);
  t.ok(evicted > 0, `${evicted} evicted`);
  t.ok(bytes > 0 && bytes <= 4096, `${bytes} bytes held within the bound`);
  t.equal((await ask(gw.url, gw.key, prompts[0]!)).headers.get('x-gateway-cache'), 'miss', 'the oldest went');
  t.equal(
    (await ask(gw.url, gw.key, prompts[5]!)).headers.get('x-gateway-cache'),
    'hit',
    'the newest stayed',
  );
});

t.test("a traced request's span says what the cache did", async (t) => {
  const receiver = await startOtlpReceiver(t);
  const gw = await startTestGateway(t, (doc) => {
    withCache()(doc);
    doc.tracing = { endpoint: receiver.url, batch: { schedule_delay: '20ms' } };
  });
  const prompt = freshPrompt();
  for (const id of ['tr-1', 'tr-2'])
    await postJson(
      `${gw.url}/v1/chat/completions`,
      { model: 'modela-5.5', messages: [{ role: 'user', content: prompt }] },
      gw.key,
      { 'x-request-id': id },
    );
  const spans = await receiver.until(
    (all) => all.filter((s) => s.attributes['gateway.cache'] !== undefined).length >= 2,
  );
  const of = (id: string) => spans.find((s) => s.attributes['gateway.request_id'] === id)?.attributes;
  t.match(of('tr-1'), { 'gateway.cache': 'miss' });
  t.match(of('tr-2'), { 'gateway.cache': 'hit' });
});

t.test('without the stage, DELETE /admin/cache is not there', async (t) => {
  const gw = await startTestGateway(t);
  const res = await fetch(`${gw.gateway.adminUrl}/admin/cache`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${gw.gateway.adminToken}` },
  });
  t.equal(res.status, 404);
});
