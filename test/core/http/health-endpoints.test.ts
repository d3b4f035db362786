/**
 * `/healthz` and `/readyz` on the main port, and `/admin/health`, against a real gateway: answered
 * outside the pipeline; unready at once when shutdown begins, asked on a keep-alive connection still
 * open while a request keeps the gateway draining; unready while a store's writes really fail (usage on
 * /dev/full, keys.jsonl replaced by a directory) and ready again once they work.
 */
import t from 'tap';
import { existsSync, symlinkSync } from 'node:fs';
import { mkdir, rm, unlink, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { startTestGateway } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';
import { eventually } from '../../helpers/wait';
import { refusedUrl } from '../../helpers/ports';
import { adminCall } from '../../helpers/reload';
import { journalRecords } from '../../helpers/stores';

const chat = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** The request went out on a connection that had served an earlier one. */
  readonly reused: boolean;
}

/** One request over `agent` (keep-alive agents reuse their connection). */
function call(
  agent: Agent,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, method: options.method ?? 'GET', headers: options.headers ?? {} });
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, reused: req.reusedSocket }),
      );
    });
    req.end(options.body);
  });
}

const chatOn = (agent: Agent, url: string, key: string, latencyMs: number): Promise<Answer> =>
  call(agent, `${url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'x-sim-latency-ms': String(latencyMs),
    },
    body: JSON.stringify(chat),
  });

const readyz = async (url: string): Promise<number> => (await fetch(`${url}/readyz`)).status;

t.test('outside the pipeline: no key, no auth limit, no usage; the state and nothing else', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.keys = { failed_auth_limit: 2 };
  });
  for (const path of ['/healthz', '/readyz', '/readyz?verbose=1']) {
    const res = await fetch(`${gw.url}${path}`);
    t.equal(res.status, 200, path);
    t.equal(await res.text(), '{"status":"ok"}', `${path}: the state only`);
    t.equal(res.headers.get('content-type'), 'application/json');
    t.equal(res.headers.get('cache-control'), 'no-store', 'never cached by a proxy between');
  }
  for (let i = 0; i < 5; i++) await fetch(`${gw.url}/readyz`);
  const res = await postJson(`${gw.url}/v1/chat/completions`, chat, gw.key);
  t.equal(res.status, 200, 'unauthenticated probes are not failed authentications (limit 2)');
  await gw.gateway.usage.flush();
  t.equal((await gw.gateway.usage.list()).length, 1, 'only the chat call is metered');

  const head = await fetch(`${gw.url}/healthz`, { method: 'HEAD' });
  t.equal(head.status, 200, 'HEAD too');
  const post = await fetch(`${gw.url}/readyz`, { method: 'POST' });
  t.equal(post.status, 405);
  t.equal(post.headers.get('allow'), 'GET, HEAD');
  t.match(await post.json(), { error: { code: 'method_not_allowed' } });

  const admin = await adminCall(gw.gateway, 'GET', '/admin/health');
  t.equal(admin.status, 200);
  t.match(admin.body, {
    status: 'ok',
    phase: 'serving',
    checks: { config: { state: 'ok', since: /Z$/ }, stores: { state: 'ok', since: /Z$/ } },
  });
  t.notOk('redis' in (admin.body as { checks: object }).checks, 'no Redis configured, no Redis check');
  const anonymous = await fetch(`${gw.gateway.adminUrl}/admin/health`);
  t.equal(anonymous.status, 401, 'the details need the admin token');
});

t.test(
  'draining: /readyz is 503 from the start of close(), on a kept-alive connection, while /healthz is 200',
  async (t) => {
    const gw = await startTestGateway(t);
    const kept = new Agent({ keepAlive: true, maxSockets: 1 });
    const other = new Agent({ keepAlive: true });
    t.teardown(() => {
      kept.destroy();
      other.destroy();
    });
    t.equal((await call(kept, `${gw.url}/readyz`)).status, 200, 'ready before');
    // Held by the simulator long enough to be in flight when close() starts, and for the checks after
    // the first has finished, even on a machine that stalls for a second.
    const first = chatOn(kept, gw.url, gw.key, 1_000); // on the kept connection
    const long = chatOn(other, gw.url, gw.key, 3_000); // keeps the gateway draining
    const chats = () => gw.sim.log.list().filter((r) => r.path.includes('/chat/')).length;
    await eventually(() => chats() === 2, 10_000, 'both requests at the simulator');

    const closing = gw.gateway.close(10_000);
    t.equal(await gw.gateway.readiness.ready(), false, 'unready as soon as close() starts');
    t.equal((await first).status, 200, 'the request in flight on the kept connection finished');

    const ready = await call(kept, `${gw.url}/readyz`);
    t.ok(ready.reused, 'asked on the kept-alive connection');
    t.equal(ready.status, 503);
    t.equal(ready.body, '{"status":"unavailable"}');
    t.equal(ready.headers['cache-control'], 'no-store');
    const healthy = await call(kept, `${gw.url}/healthz`);
    t.equal(healthy.status, 200, 'still alive while draining');
    const admin = await adminCall(gw.gateway, 'GET', '/admin/health');
    t.match(admin.body, { status: 'unavailable', phase: 'draining' });
    const refused = await call(kept, `${gw.url}/v1/models`, {
      headers: { authorization: `Bearer ${gw.key}` },
    });
    t.equal(refused.status, 503, 'other requests are refused meanwhile');
    t.match(JSON.parse(refused.body), { error: { code: 'shutting_down' } });

    t.equal((await long).status, 200, 'the long request finished within the grace period');
    await closing;
  },
);

t.test(
  'usage that cannot be written (usage.jsonl on /dev/full): unready, with the reason for operators; ready again once it can',
  { skip: existsSync('/dev/full') ? false : 'no /dev/full here' },
  async (t) => {
    const gw = await startTestGateway(t, (doc) => {
      const storage = doc.storage as { data_dir: string };
      // Every append fails with ENOSPC, as on a full disk: a failure root cannot write past.
      symlinkSync('/dev/full', join(storage.data_dir, 'usage.jsonl'));
    });
    t.equal(await readyz(gw.url), 200, 'nothing written yet, nothing failed');
    t.equal((await postJson(`${gw.url}/v1/chat/completions`, chat, gw.key)).status, 200);
    await eventually(async () => (await readyz(gw.url)) === 503, 10_000);
    t.pass('/readyz: 503 once the usage write failed');
    t.equal((await fetch(`${gw.url}/healthz`)).status, 200, '/healthz: the process is alive');
    const failing = await adminCall(gw.gateway, 'GET', '/admin/health');
    t.match(failing.body, {
      status: 'unavailable',
      phase: 'serving',
      checks: {
        stores: { state: 'failing', reason: /^usage\.jsonl: the last write failed \(ENOSPC/, since: /Z$/ },
      },
    });

    await unlink(join(gw.dataDir, 'usage.jsonl')); // the disk recovers: the next retry starts a real file
    await eventually(async () => (await readyz(gw.url)) === 200, 15_000);
    t.pass('/readyz: 200 again once the retried write succeeded');
    t.match((await adminCall(gw.gateway, 'GET', '/admin/health')).body, {
      status: 'ok',
      checks: { stores: { state: 'ok' } },
    });
    t.equal((await gw.gateway.usage.list()).length, 1, 'and the record was written');
  },
);

t.test(
  'keys.jsonl replaced by a directory: the next key write fails (EISDIR), unready; removed, ready again',
  async (t) => {
    const gw = await startTestGateway(t);
    const file = join(gw.dataDir, 'keys.jsonl');
    await rm(file);
    await mkdir(file);
    await writeFile(join(file, 'occupied'), ''); // a directory with an entry: no rename can replace it
    await t.rejects(gw.gateway.keys.create({ description: 'not stored' }), { code: 'EISDIR' });
    await eventually(async () => (await readyz(gw.url)) === 503, 10_000);
    t.match((await adminCall(gw.gateway, 'GET', '/admin/health')).body, {
      checks: { stores: { state: 'failing', reason: /^keys\.jsonl: the last write failed \(EISDIR/ } },
    });

    await rm(file, { recursive: true });
    const { record } = await gw.gateway.keys.create({ description: 'stored' });
    await eventually(async () => (await readyz(gw.url)) === 200, 10_000);
    t.pass('ready again once a write of keys.jsonl succeeds');
    const journaled = (await journalRecords<{ id: string }>(file)).map((k) => k.id);
    t.ok(journaled.includes(record.id), 'the journal holds the key made after the failure');
    t.strictSame(
      journaled.sort(),
      (await gw.gateway.keys.list()).map((k) => k.id).sort(),
      'and every key the gateway holds: after a failed write, memory is written whole',
    );
  },
);

t.test('Redis configured but down: ready on the local fallback, shown as degraded', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.redis = { url: refusedUrl('', 'redis') }; // nothing listens there
  });
  t.equal(await readyz(gw.url), 200);
  t.match((await adminCall(gw.gateway, 'GET', '/admin/health')).body, {
    status: 'ok',
    checks: { redis: { state: 'degraded', reason: /^not connected/ } },
  });
});
