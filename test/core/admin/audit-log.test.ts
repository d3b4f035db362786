/**
 * The audit log over real HTTP: a record after each kind of change, with the public fields' before and
 * after, written before the answer; refused calls (401, 403) recorded with the client's address; never a
 * key, a token or a hash in the log file or in `GET /admin/audit`; filters and pages; and what a failed
 * write does.
 */
import t from 'tap';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bootstrapTokenSource } from '../../../core/admin/actor-sources';
import { AdminServer } from '../../../core/admin/admin-server';
import { AdminTokenService } from '../../../core/admin/admin-token-service';
import type { AuditEntry } from '../../../core/admin/wire';
import { KeyHasher } from '../../../core/keys/api-key';
import type { AuditStore } from '../../../core/stores/audit-store';
import { EmbeddedAdminTokenStore } from '../../../core/stores/embedded/embedded-admin-token-store';
import { startTestGateway, tempDir } from '../../helpers/gateway';
import { capturingLogger, journalRecords } from '../../helpers/stores';
import { adminCall, makeAdminToken, teamsNamed } from '../../helpers/admin';

interface Page {
  data: AuditEntry[];
  next_cursor: string | null;
}

t.test('each kind of change is recorded with its before and after, and no secret', async (t) => {
  const gw = await startTestGateway(t, undefined, { teamExists: teamsNamed('team-a') });
  const root = gw.gateway.adminToken;
  const admin = (method: string, path: string, body?: unknown) =>
    adminCall<Record<string, unknown>>(gw, root, method, path, body);
  const audit = async (query = '') => (await adminCall<Page>(gw, root, 'GET', `/admin/audit${query}`)).body;

  const created = await admin('POST', '/admin/keys', { description: 'before', rate_limit_rpm: 10 });
  const key = created.body['key'] as string;
  const id = (created.body['record'] as { id: string }).id;
  // Written before the answer: the record is there as soon as the call returns.
  const [first] = (await audit()).data;
  t.match(first, {
    action: 'key.create',
    actor: { kind: 'token', id: 'bootstrap', name: 'bootstrap token', role: 'admin' },
    target: { kind: 'key', id },
    outcome: { status: 201 },
    changes: {
      id: { before: null, after: id },
      description: { before: null, after: 'before' },
      rate_limit_rpm: { before: null, after: 10 },
    },
  });
  t.match(first?.request_id, /./);
  t.match(first?.client_address, /127\.0\.0\.1$/);

  await admin('PATCH', `/admin/keys/${id}`, { description: 'after', rate_limit_rpm: null });
  await admin('POST', `/admin/keys/${id}/disable`);
  await admin('POST', `/admin/keys/${id}/enable`);
  const rotated = await admin('POST', `/admin/keys/${id}/rotate`, { disable_old_after: 60 });
  const newKey = rotated.body['key'] as string;
  const newId = (rotated.body['record'] as { id: string }).id;
  await admin('DELETE', `/admin/keys/${newId}`);
  const token = await makeAdminToken(gw, { role: 'viewer', description: 'read only' });
  const tokenId = token.slice(0, 12);
  await admin('DELETE', `/admin/tokens/${tokenId}`);
  await admin('POST', '/admin/reload');
  await admin('PATCH', '/admin/keys/sk-missing00', { description: 'x' });

  const byAction = new Map((await audit()).data.map((r) => [r.action + ' ' + r.target.id, r]));
  t.match(byAction.get(`key.update ${id}`), {
    outcome: { status: 200 },
    changes: {
      description: { before: 'before', after: 'after' },
      rate_limit_rpm: { before: 10, after: null },
    },
  });
  t.notOk('enabled' in (byAction.get(`key.update ${id}`)?.changes ?? {}), 'only the changed fields');
  t.match(byAction.get(`key.disable ${id}`)?.changes, {
    enabled: { before: true, after: false },
    status: { before: 'enabled', after: 'disabled' },
  });
  t.match(byAction.get(`key.enable ${id}`)?.changes, { enabled: { before: false, after: true } });
  t.match(byAction.get(`key.rotate ${id}`), {
    outcome: { status: 201 },
    changes: { replaced_by: { before: null, after: newId }, expires_at: { before: null } },
  });
  t.match(byAction.get(`key.delete ${newId}`)?.changes, { id: { before: newId, after: null } });
  t.match(byAction.get(`token.create ${tokenId}`), {
    outcome: { status: 201 },
    changes: { role: { before: null, after: 'viewer' }, description: { before: null, after: 'read only' } },
  });
  t.match(byAction.get(`token.delete ${tokenId}`)?.changes, { role: { before: 'viewer', after: null } });
  t.match(byAction.get('config.reload '), {
    target: { kind: 'config' },
    outcome: { status: 409, code: 'reload_unavailable' },
  });
  t.match(
    byAction.get('key.update sk-missing00'),
    {
      outcome: { status: 404, code: 'key_not_found' },
      changes: {},
    },
    'a failed change is recorded too',
  );

  const secrets = [key, newKey, token, root];
  const stored = await Promise.all(
    ['keys.jsonl', 'admin-tokens.jsonl'].map((file) =>
      journalRecords<{ id: string; hash: string }>(join(gw.dataDir, file)),
    ),
  );
  const hashes = stored.flat().map((record) => record.hash);
  t.ok(hashes.length >= 2, 'hashes to look for');
  const files = (await readdir(gw.dataDir)).filter((f) => f.startsWith('audit'));
  const logText = (await Promise.all(files.map((f) => readFile(join(gw.dataDir, f), 'utf8')))).join('');
  const answer = (await adminCall(gw, root, 'GET', '/admin/audit?limit=500')).text;
  t.ok(
    logText.includes('key.rotate') && answer.includes('key.rotate'),
    'the log and the answer hold the records',
  );
  for (const secret of [...secrets, ...hashes]) {
    t.notOk(logText.includes(secret), 'no key, token or hash in the audit file');
    t.notOk(answer.includes(secret), 'nor in the answer');
  }
  t.notMatch(logText, /"hash"/);
});

t.test('refused calls are recorded, any method, with the client address', async (t) => {
  const gw = await startTestGateway(t, undefined, { teamExists: teamsNamed('team-a') });
  const viewer = await makeAdminToken(gw, { role: 'viewer', description: 'auditor' });
  const viewerId = viewer.slice(0, 12);
  await adminCall(gw, undefined, 'GET', '/admin/keys');
  await adminCall(gw, 'gat-' + 'x'.repeat(43), 'DELETE', '/admin/keys/sk-whatever0');
  await adminCall(gw, viewer, 'POST', '/admin/keys', {});
  const ownKeyless = await gw.gateway.keys.create({});
  const teamAdmin = await makeAdminToken(gw, { role: 'team_admin', team_id: 'team-a' });
  await adminCall(gw, teamAdmin, 'GET', `/admin/keys/${ownKeyless.record.id}`);

  const denied = (
    await adminCall<Page>(gw, viewer, 'GET', '/admin/audit?action=access.denied')
  ).body.data.reverse();
  t.equal(denied.length, 4, 'two 401s and two 403s');
  t.match(denied[0], {
    actor: { kind: 'unknown', id: '', name: '' },
    target: { kind: 'route', id: 'GET /admin/keys' },
    outcome: { status: 401, code: 'unauthorized' },
  });
  t.match(denied[1], { target: { id: 'DELETE /admin/keys/:id' }, outcome: { status: 401 } });
  t.match(denied[2], {
    actor: { kind: 'token', id: viewerId, name: 'auditor', role: 'viewer' },
    target: { id: 'POST /admin/keys' },
    outcome: { status: 403, code: 'forbidden' },
  });
  t.match(denied[3], {
    actor: { role: 'team_admin', team_id: 'team-a' },
    target: { id: 'GET /admin/keys/:id' },
    outcome: { status: 403 },
  });
  for (const record of denied) t.match(record.client_address, /127\.0\.0\.1$/, 'with the address');
  t.notOk(JSON.stringify(denied).includes('x'.repeat(43)), 'what was presented is not kept');
});

t.test('GET /admin/audit: filters, pages newest first, bad queries named', async (t) => {
  const gw = await startTestGateway(t);
  const root = gw.gateway.adminToken;
  for (let i = 0; i < 5; i++) await adminCall(gw, root, 'POST', '/admin/keys', { description: `k${i}` });
  const viewer = await makeAdminToken(gw, { role: 'viewer' });
  await adminCall(gw, viewer, 'DELETE', '/admin/tokens/bootstrap');

  const all = (await adminCall<Page>(gw, viewer, 'GET', '/admin/audit')).body.data;
  t.strictSame(
    all.map((r) => r.action),
    ['access.denied', 'token.create', 'key.create', 'key.create', 'key.create', 'key.create', 'key.create'],
    'newest first',
  );
  const pages: string[] = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const query: string = `/admin/audit?action=key.create&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
    const page: Page = (await adminCall<Page>(gw, root, 'GET', query)).body;
    pages.push(page.data.map((r) => String(r.changes['description']?.after)).join(','));
    cursor = page.next_cursor;
  }
  t.strictSame(pages, ['k4,k3', 'k2,k1', 'k0'], 'pages of two, then the rest');
  const mine = (await adminCall<Page>(gw, root, 'GET', `/admin/audit?actor=${viewer.slice(0, 12)}`)).body;
  t.strictSame(
    mine.data.map((r) => r.action),
    ['access.denied'],
    'by actor',
  );
  const target = all[2]!.target.id;
  t.strictSame(
    (await adminCall<Page>(gw, root, 'GET', `/admin/audit?target=${target}`)).body.data.map((r) => r.id),
    [all[2]!.id],
    'by target',
  );
  const at = all[3]!.at;
  const from = (await adminCall<Page>(gw, root, 'GET', `/admin/audit?from=${at}`)).body.data;
  t.ok(from.every((r) => r.at >= at) && from.length >= 4, 'from a time');
  const to = (await adminCall<Page>(gw, root, 'GET', `/admin/audit?to=${at}`)).body.data;
  t.ok(
    to.every((r) => r.at < at),
    'before a time',
  );
  for (const [query, name] of [
    ['limit=0', 'limit'],
    ['from=yesterday', 'from'],
    ['cursor=nope', 'cursor'],
    ['who=me', 'who'],
  ]) {
    const bad = await adminCall<{ error: { message: string } }>(gw, root, 'GET', `/admin/audit?${query}`);
    t.equal(bad.status, 400, query!);
    t.match(bad.body.error.message, `'${name}'`);
  }
});

t.test('a failed audit write: the call is answered as it was, the record logged in full', async (t) => {
  const gw = await startTestGateway(t);
  const { logger, lines } = capturingLogger();
  const dir = await tempDir(t);
  const failing: AuditStore = {
    append: () => Promise.reject(new Error('ENOSPC: no space left on device')),
    page: () => Promise.resolve([]),
    close: () => Promise.resolve(),
  };
  const tokens = new AdminTokenService(
    await EmbeddedAdminTokenStore.open(dir),
    new KeyHasher(Buffer.from('s')),
    {
      cacheTtlMs: 1_000,
      cacheMax: 10,
    },
  );
  const server = new AdminServer(
    { actors: [bootstrapTokenSource('root-token')], tokens, audit: failing, logger },
    gw.gateway.keys,
    gw.gateway.usage,
  );
  const port = await server.listen('127.0.0.1', 0);
  t.teardown(() => server.close());
  const res = await fetch(`http://127.0.0.1:${port}/admin/keys`, {
    method: 'POST',
    headers: { authorization: 'Bearer root-token', 'content-type': 'application/json' },
    body: JSON.stringify({ description: 'made while the log is full' }),
  });
  t.equal(res.status, 201, 'the key is made and the answer says so');
  const { key } = (await res.json()) as { key: string };
  const logged = lines.find((l) => l.msg.startsWith('audit record not written'));
  t.match(logged, { level: 50, audit: { action: 'key.create', outcome: { status: 201 } } }, 'at error level');
  t.notOk(JSON.stringify(lines).includes(key), 'the log line holds no key either');
});
