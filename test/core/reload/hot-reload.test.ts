/**
 * Hot reload of a gateway started from a file: a new file applies to the next request, a bad one never
 * replaces the running one, requests in flight finish on the snapshot they started with, and state
 * (rate-limit windows) carries across.
 */
import { startTestGateway, tempDir, testConfig, type ConfigDoc } from '../../helpers/gateway'; // first: it loads the plugins
import { mkdir, open, rename, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { parseConfigText, readConfigText } from '../../../config/load';
import { startGateway } from '../../../core/boot/gateway';
import { openStream, postJson, type ErrorBody } from '../../helpers/http';
import { eventually, until } from '../../helpers/wait';
import { adminCall, startFileGateway, type FileGateway } from '../../helpers/reload';
import { submitVideo, untilFinished, videoBody } from '../../plugins/video-helpers';
import { startSimulator } from '../../../simulator/server';

const CHAT = '/v1/chat/completions';
const ask = (model = 'modela-5.5') => ({ model, messages: [{ role: 'user', content: 'hi #sim tokens=2' }] });

/** A second upstream of the modela family, at the same simulator. */
function withSecondModela(doc: ConfigDoc): ConfigDoc {
  const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
  upstreams['modela-second'] = { ...upstreams['modela-main']! };
  return doc;
}

/** Which upstream served the request `requestId` (its usage record; records are written in batches). */
async function servedBy(gw: FileGateway, requestId: string): Promise<string | undefined> {
  let upstream: string | undefined;
  await eventually(async () => {
    [{ upstream } = { upstream: undefined }] = await gw.gateway.usage.list({ id: requestId });
    return upstream !== undefined;
  });
  return upstream;
}

async function chat(gw: FileGateway, model?: string) {
  const res = await postJson(`${gw.url}${CHAT}`, ask(model), gw.key);
  return { ...res, requestId: res.headers.get('x-request-id') ?? '' };
}

t.test('POST /admin/reload applies a new route to the next request', async (t) => {
  const gw = await startFileGateway(t);
  const before = await gw.admin('GET', '/admin/config');
  t.equal(before.status, 200);
  t.match(before.body, { reloads: 0, trigger: 'start', last_error: null, restart_required: [] });
  t.equal(before.body.version, before.body.hash?.slice(0, 12));

  const doc = withSecondModela(gw.doc());
  doc.routes = { 'modela-5.5': { targets: [{ upstream: 'modela-second' }] } };
  await gw.write(doc);
  const reload = await gw.admin('POST', '/admin/reload');
  t.equal(reload.status, 200);
  t.match(reload.body, { applied: true, reloads: 1, trigger: 'admin', last_error: null });
  t.not(reload.body.version, before.body.version);
  const after = await chat(gw);
  t.equal(after.status, 200);
  t.equal(await servedBy(gw, after.requestId), 'modela-second', 'the new route serves the next request');

  const again = await gw.admin('POST', '/admin/reload');
  t.match(again.body, { applied: false, reloads: 1 }, 'an unchanged file is not reloaded');
});

t.test('a bad file never replaces the running configuration', async (t) => {
  const gw = await startFileGateway(t);
  const good = stringify(gw.doc());
  const version = (await gw.admin('GET', '/admin/config')).body.version;
  const variants: [string, string, RegExp][] = [
    ['YAML syntax', `${good}pipeline: [auth\n`, /invalid YAML/],
    [
      'an unknown plugin',
      stringify({ ...gw.doc(), upstreams: { x: { plugin: 'nope' } } }),
      /unknown upstream plugin "nope"/,
    ],
    [
      'a route to an unknown upstream',
      stringify({ ...gw.doc(), routes: { 'modela-5.5': { targets: [{ upstream: 'gone' }] } } }),
      /no upstream named "gone"/,
    ],
    [
      'a negative limit',
      stringify({
        ...gw.doc(),
        pipeline: ['auth', 'model-router', { 'rate-limit': { requests_per_minute: -5 } }],
      }),
      /requests_per_minute/,
    ],
    [
      'a file cut off mid-write',
      good.slice(0, Math.floor(good.length * 0.6)).replace(/\n$/, 'x'),
      /cut off mid-write/,
    ],
    ['an empty pipeline', stringify({ ...gw.doc(), pipeline: [] }), /pipeline/],
  ];
  for (const [name, text, message] of variants) {
    await gw.writeText(text);
    const reload = await gw.admin('POST', '/admin/reload');
    t.equal(reload.status, 422, `${name}: refused`);
    t.equal(reload.body.error?.code, 'config_invalid', name);
    t.match(reload.body.error?.message, message, `${name}: the message says what is wrong`);
    const status = (await gw.admin('GET', '/admin/config')).body;
    t.equal(status.version, version, `${name}: the running version is unchanged`);
    t.match(status.last_error, { message, trigger: 'admin' }, `${name}: shown as the last error`);
    const served = await chat(gw);
    t.equal(served.status, 200, `${name}: the old configuration still serves`);
  }
  await gw.writeText(good);
  const restored = await gw.admin('POST', '/admin/reload');
  t.match(
    restored.body,
    { applied: false, last_error: null },
    'the running file again: the error is cleared',
  );
});

t.test('settings only a restart applies are reported; the rest applies', async (t) => {
  const gw = await startFileGateway(t);
  const doc = gw.doc();
  (doc.server as Record<string, unknown>).port = 1;
  doc.prices = { 'modela-*': { input_per_mtok: 1_000_000, output_per_mtok: 0 } };
  await gw.write(doc);
  const reload = await gw.admin('POST', '/admin/reload');
  t.equal(reload.status, 200);
  t.same(reload.body.restart_required, ['server.port']);
  const res = await chat(gw);
  t.equal(res.status, 200, 'still listening where it was');
  await eventually(async () => (await gw.gateway.usage.list({ id: res.requestId })).length === 1);
  const [record] = await gw.gateway.usage.list({ id: res.requestId });
  t.equal(record?.cost_micros, record!.prompt_tokens * 1_000_000, 'the new price applies');
});

t.test('a stream keeps its snapshot to the end, even when its upstream is removed', async (t) => {
  const gw = await startFileGateway(t);
  const body = { model: 'modelc-3.6-plus', stream: true, messages: [{ role: 'user', content: 'hi' }] };
  const res = await openStream(`${gw.url}${CHAT}`, body, gw.key, { 'x-sim-tps': '20', 'x-sim-tokens': '15' });
  t.equal(res.statusCode, 200);
  res.setEncoding('utf8');
  let text = '';
  const ended = new Promise<void>((resolve) => {
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', resolve);
  });
  const doc = gw.doc();
  delete (doc.upstreams as Record<string, unknown>)['modelc-main'];
  await gw.write(doc);
  t.equal((await gw.admin('POST', '/admin/reload')).body.applied, true);
  const refused = await postJson<ErrorBody>(`${gw.url}${CHAT}`, { ...body, stream: false }, gw.key);
  t.equal(refused.status, 404, 'a new request for the removed model is refused');
  t.equal(refused.body.error.code, 'model_not_found');
  await ended;
  t.match(text, /data: \[DONE\]\s*$/, 'the open stream completed');
  t.notMatch(text, /"error"/);
});

t.test('rate-limit windows carry across a reload; new limits apply to them', async (t) => {
  const gw = await startFileGateway(t, (doc) => {
    (doc.pipeline as unknown[])[2] = { 'rate-limit': { requests_per_minute: 3 } };
  });
  for (let i = 0; i < 2; i++) t.equal((await chat(gw)).status, 200);
  const doc = gw.doc();
  doc.prices = { 'modela-*': { input_per_mtok: 1 } };
  await gw.write(doc);
  t.equal((await gw.admin('POST', '/admin/reload')).body.applied, true);
  t.equal((await chat(gw)).status, 200, 'the third of three');
  t.equal((await chat(gw)).status, 429, 'the fourth is refused: the window was kept');
  (doc.pipeline as unknown[])[2] = { 'rate-limit': { requests_per_minute: 5 } };
  await gw.write(doc);
  await gw.admin('POST', '/admin/reload');
  t.equal((await chat(gw)).status, 200, 'a raised limit admits more in the same window');
});

t.test(
  'declared keys change with the file; a key no longer declared is refused and its stream ends',
  async (t) => {
    const secret = `sk-${'d'.repeat(40)}`;
    const gw = await startFileGateway(t);
    const declare = (doc: ConfigDoc, entries: unknown[]) => {
      doc.keys = { declared: entries };
      return doc;
    };
    t.equal((await postJson(`${gw.url}${CHAT}`, ask(), secret)).status, 401);
    await gw.write(declare(gw.doc(), [{ name: 'team-a', secret }]));
    t.equal((await gw.admin('POST', '/admin/reload')).body.applied, true);
    t.equal((await postJson(`${gw.url}${CHAT}`, ask(), secret)).status, 200, 'declared by the reload');

    const body = { model: 'modelc-3.6-plus', stream: true, messages: [{ role: 'user', content: 'hi' }] };
    const res = await openStream(`${gw.url}${CHAT}`, body, secret, {
      'x-sim-tps': '10',
      'x-sim-tokens': '100',
    });
    res.setEncoding('utf8');
    let text = '';
    const ended = new Promise<void>((resolve) => {
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', resolve);
    });
    await gw.write(declare(gw.doc(), []));
    t.equal((await gw.admin('POST', '/admin/reload')).body.applied, true);
    t.equal((await postJson(`${gw.url}${CHAT}`, ask(), secret)).status, 401, 'no longer declared');
    await ended;
    t.match(text, /"error"/, 'its open stream ended with an error event');
  },
);

t.test('the file watch applies renames over the file and ConfigMap-style symlink swaps', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const dir = await tempDir(t);
  // Kubernetes mounts a ConfigMap as `gateway.yaml -> ..data/gateway.yaml`, `..data -> ..<timestamp>`.
  const write = async (name: string, doc: ConfigDoc) => {
    await mkdir(join(dir, name));
    await writeFile(join(dir, name, 'gateway.yaml'), stringify(doc));
  };
  const doc = testConfig(sim.url, join(dir, 'data'));
  doc.reload = { watch: true, settle: '50ms' };
  await write('..v1', doc);
  await symlink('..v1', join(dir, '..data'));
  await symlink(join('..data', 'gateway.yaml'), join(dir, 'gateway.yaml'));
  const file = join(dir, 'gateway.yaml');
  const text = readConfigText(file);
  const env = {};
  const gateway = await startGateway(parseConfigText(text, file, env), {
    env,
    source: { file, hash: text.hash },
  });
  t.teardown(() => gateway.close(1_000));
  const version = async () => (await adminCall(gateway, 'GET', '/admin/config')).body;
  const first = await version();
  t.equal(first.watching, true);

  doc.prices = { 'modela-*': { input_per_mtok: 2 } };
  await write('..v2', doc);
  await symlink('..v2', join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data')); // the atomic swap kubelet makes
  await eventually(async () => (await version()).version !== first.version, 10_000, 'the reload');
  t.equal((await version()).trigger, 'file', 'the symlink swap was seen');
});

t.test('the file watch applies a file renamed over it and one written in place', async (t) => {
  const gw = await startFileGateway(t, (doc) => {
    doc.reload = { watch: true, settle: '100ms' };
  });
  const status = async () => (await gw.admin('GET', '/admin/config')).body;
  const first = await status();
  t.equal(first.watching, true);
  const doc = gw.doc();
  doc.prices = { 'modela-*': { input_per_mtok: 2 } };
  await gw.write(doc); // written beside and renamed over, as editors and deploy tools do
  await eventually(async () => (await status()).version !== first.version, 10_000, 'the first reload');
  t.match(await status(), { trigger: 'file', reloads: 1 });

  const second = await status();
  doc.prices = { 'modela-*': { input_per_mtok: 3 } };
  await writeFile(gw.file, stringify(doc)); // in place
  await eventually(async () => (await status()).version !== second.version, 10_000, 'the second reload');
  t.match(await status(), { trigger: 'file', reloads: 2, last_error: null });

  // A writer that pauses mid-file (shorter than `settle`): the half file is never read.
  const third = await status();
  doc.prices = { 'modela-*': { input_per_mtok: 4 } };
  const text = stringify(doc);
  const handle = await open(gw.file, 'w');
  await handle.write(text.slice(0, text.length / 2));
  await new Promise((r) => setTimeout(r, 40)); // the writer's pause: time passing is the subject here
  await handle.write(text.slice(text.length / 2));
  await handle.close();
  await eventually(async () => (await status()).version !== third.version, 10_000, 'the third reload');
  t.match(await status(), { reloads: 3, last_error: null }, 'one reload, of the whole file');
});

t.test('a file written beside gateway.yaml without pause does not hold a reload back', async (t) => {
  const gw = await startFileGateway(t, (doc) => {
    doc.reload = { watch: true, settle: '100ms' };
  });
  const status = async () => (await gw.admin('GET', '/admin/config')).body;
  const first = await status();
  // A log in the same directory, written without pause: far more often than `settle`.
  const log = await open(join(dirname(gw.file), 'gateway.log'), 'a');
  let writing = true;
  const writer = (async () => {
    while (writing) {
      await log.write('{"msg":"request completed"}\n');
    }
  })();
  t.teardown(async () => {
    writing = false;
    await writer;
    await log.close();
  });

  const doc = gw.doc();
  doc.prices = { 'modela-*': { input_per_mtok: 2 } };
  await gw.write(doc);
  await eventually(async () => (await status()).version !== first.version, 10_000, 'the reload');
  t.match(await status(), { trigger: 'file', reloads: 1, last_error: null });
});

t.test('a gateway started from a configuration object has nothing to reload', async (t) => {
  const gw = await startTestGateway(t);
  const reload = await adminCall(gw.gateway, 'POST', '/admin/reload');
  t.equal(reload.status, 409);
  t.match(reload.body, { error: { code: 'reload_unavailable', type: 'error' } });
  const status = await adminCall<Record<string, unknown>>(gw.gateway, 'GET', '/admin/config');
  t.equal(status.status, 200);
  t.match(status.body, { file: '', reloads: 0, trigger: 'start', watching: false, last_error: null });
});

t.test('a video task under way across reloads is polled to its end and billed once', async (t) => {
  const gw = await startFileGateway(t);
  const asTestGateway = { ...gw, dataDir: '', createKey: () => Promise.resolve(gw.key) };
  // Running upstream for 2 s: still under way when its upstream is gone, after two reloads on a loaded
  // machine too.
  const submitted = await submitVideo(asTestGateway, 'generic', videoBody('videoa-1.1-t2v', 'task_ms=2000'));
  t.equal(submitted.status, 200);
  const id = String(submitted.body.id);
  // New poll settings make a new Upstream for videoa-main; then it is removed and put back.
  const doc = gw.doc();
  const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
  const videoa = upstreams['videoa-main']!;
  upstreams['videoa-main'] = { ...videoa, poll: { ...(videoa.poll as object), every: '50ms' } };
  await gw.write(doc);
  t.equal((await gw.admin('POST', '/admin/reload')).body.applied, true);
  delete upstreams['videoa-main'];
  await gw.write(doc);
  t.equal((await gw.admin('POST', '/admin/reload')).body.applied, true);
  // A poll meanwhile finds no upstream and waits: counted as a poll error, put off with a backoff.
  await until(
    () => gw.gateway.tasks.get(id),
    (task) => task !== undefined && task.poll_errors > 0,
    { what: 'a poll that found no upstream' },
  );
  upstreams['videoa-main'] = videoa;
  await gw.write(doc);
  t.equal((await gw.admin('POST', '/admin/reload')).body.applied, true);
  const done = await untilFinished(asTestGateway, 'generic', id);
  t.equal(done.body.status, 'completed');
  // Billed with its lease given back is the poller's last step on the task: a billed task is never
  // leased (so polled or billed) again. No record can be on its way after it.
  await until(
    () => gw.gateway.tasks.get(id),
    (task) => task?.billed === true && task.lease === null,
    { what: 'the task billed and its lease given back' },
  );
  t.equal((await gw.gateway.usage.list({ id })).length, 1, 'billed exactly once');
});
