/**
 * Admin tokens over real HTTP: made (shown once), listed (never the token or its hash), used with their
 * role, revoked (refused at once), the bootstrap token listed and kept; a token never passes as an API
 * key. Then revocation across instances, over Redis pub/sub.
 */
import t from 'tap';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import { AdminTokenService, ADMIN_TOKEN_EVENTS_CHANNEL } from '../../../core/admin/admin-token-service';
import { KeyHasher } from '../../../core/keys/api-key';
import { KeyEvents } from '../../../core/keys/key-events';
import { RedisLink } from '../../../core/redis/redis-link';
import { EmbeddedAdminTokenStore } from '../../../core/stores/embedded/embedded-admin-token-store';
import { startTestGateway, tempDir } from '../../helpers/gateway';
import { adminCall, teamsNamed, type ErrorBody } from '../../helpers/admin';
import { journalRecords } from '../../helpers/stores';
import { postJson } from '../../helpers/http';
import { redisPrefix, TEST_REDIS_URL } from '../../helpers/redis';
import { until } from '../../helpers/wait';

interface Made {
  token: string;
  record: { id: string; description: string; role: string; team_id?: string; created_at: string };
}

t.test('made, listed, used with its role, revoked at once', async (t) => {
  const gw = await startTestGateway(t, undefined, { teamExists: teamsNamed('team-a') });
  const root = gw.gateway.adminToken;

  const made = await adminCall<Made>(gw, root, 'POST', '/admin/tokens', {
    description: 'ci',
    role: 'viewer',
  });
  t.equal(made.status, 201);
  const { token, record } = made.body;
  t.match(token, /^gat-[A-Za-z0-9_-]{43}$/, 'gat- and 32 random bytes');
  t.strictSame(Object.keys(record).sort(), ['created_at', 'description', 'id', 'role']);
  t.match(record, { id: token.slice(0, 12), description: 'ci', role: 'viewer' });

  const team = await adminCall<Made>(gw, root, 'POST', '/admin/tokens', {
    role: 'team_admin',
    team_id: 'team-a',
  });
  t.equal(team.status, 201);
  t.equal(team.body.record.team_id, 'team-a');

  const listed = await adminCall<{ data: Record<string, unknown>[] }>(gw, root, 'GET', '/admin/tokens');
  t.equal(listed.status, 200);
  t.match(listed.body.data[0], { id: 'bootstrap', role: 'admin', bootstrap: true, created_at: null });
  t.strictSame(
    listed.body.data.map((d) => d['id']),
    ['bootstrap', record.id, team.body.record.id],
  );
  const stored = await journalRecords<{ id: string; hash: string }>(join(gw.dataDir, 'admin-tokens.jsonl'));
  t.equal(stored.length, 2, 'the made tokens are in the journal');
  for (const { hash } of stored) t.notMatch(listed.text, hash, 'no hash in the listing');
  t.notMatch(listed.text, /"hash"/);
  t.notMatch(listed.text, token, 'nor the token');
  t.notMatch(listed.text, root, 'nor the bootstrap token');
  for (const file of await readdir(gw.dataDir)) {
    const text = await readFile(join(gw.dataDir, file), 'utf8').catch(() => '');
    t.notMatch(text, token, `${file} holds no made token`);
    t.notMatch(text, team.body.token, `${file} holds no made token`);
  }

  t.equal((await adminCall(gw, token, 'GET', '/admin/keys')).status, 200, 'a viewer reads');
  t.equal((await adminCall(gw, token, 'POST', '/admin/keys', {})).status, 403, 'and changes nothing');
  const onMain = await postJson(
    `${gw.url}/v1/chat/completions`,
    { model: 'modela-5.5', messages: [] },
    token,
  );
  t.equal(onMain.status, 401, 'an admin token never passes as an API key');

  const revoked = await adminCall(gw, root, 'DELETE', `/admin/tokens/${record.id}`);
  t.equal(revoked.status, 200);
  t.match(revoked.body, { id: record.id, role: 'viewer' });
  t.equal((await adminCall(gw, token, 'GET', '/admin/keys')).status, 401, 'refused at once, cache or not');
  t.equal((await adminCall(gw, root, 'DELETE', `/admin/tokens/${record.id}`)).status, 404, 'gone');
  const again = await adminCall<ErrorBody>(gw, root, 'DELETE', '/admin/tokens/gat-none0000');
  t.equal(again.body.error.code, 'token_not_found');
  const bootstrap = await adminCall<ErrorBody>(gw, root, 'DELETE', '/admin/tokens/bootstrap');
  t.equal(bootstrap.status, 409);
  t.equal(bootstrap.body.error.code, 'token_bootstrap', 'the bootstrap token is not deletable');
  t.equal((await adminCall(gw, root, 'GET', '/admin/keys')).status, 200, 'and still works');
});

t.test('team_id: required for team_admin and an existing team, refused for other roles', async (t) => {
  const gw = await startTestGateway(t, undefined, { teamExists: teamsNamed('team-a') });
  const cases: [unknown, RegExp][] = [
    [{ role: 'team_admin' }, /^field 'team_id' must be given for a team_admin token$/],
    [{ role: 'team_admin', team_id: 'team-z' }, /^field 'team_id' must be the id of an existing team$/],
    [{ role: 'viewer', team_id: 'team-a' }, /^field 'team_id' must be absent: a viewer token has no team$/],
    [{ role: 'admin', team_id: 'team-a' }, /^field 'team_id' must be absent/],
    [{ role: 'root' }, /^field 'role' must be 'admin', 'team_admin' or 'viewer'$/],
    [{ description: 'no role' }, /^field 'role'/],
    [{ role: 'viewer', scope: 'all' }, /^unknown field 'scope'$/],
  ];
  for (const [body, message] of cases) {
    const answer = await adminCall<ErrorBody>(gw, gw.gateway.adminToken, 'POST', '/admin/tokens', body);
    t.equal(answer.status, 400, JSON.stringify(body));
    t.match(answer.body.error, { code: 'invalid_request', message, type: 'error' });
  }
  const listed = await adminCall<{ data: unknown[] }>(gw, gw.gateway.adminToken, 'GET', '/admin/tokens');
  t.equal(listed.body.data.length, 1, 'none was made');
});

t.test('whoami: each token is told its own role and team, as the console needs', async (t) => {
  const gw = await startTestGateway(t, undefined, { teamExists: teamsNamed('team-a') });
  const whoami = async (token: string | undefined) =>
    await adminCall<{ actor: Record<string, unknown> }>(gw, token, 'GET', '/admin/whoami');
  t.strictSame((await whoami(gw.gateway.adminToken)).body, {
    actor: { kind: 'token', id: 'bootstrap', name: 'bootstrap token', role: 'admin' },
  });
  const made = await adminCall<Made>(gw, gw.gateway.adminToken, 'POST', '/admin/tokens', {
    role: 'team_admin',
    team_id: 'team-a',
    description: 'team a lead',
  });
  t.strictSame((await whoami(made.body.token)).body, {
    actor: {
      kind: 'token',
      id: made.body.record.id,
      name: 'team a lead',
      role: 'team_admin',
      team_id: 'team-a',
    },
  });
  const refused = await whoami('gat-not-a-token');
  t.equal(refused.status, 401, 'an unknown token is refused, not described');
  t.equal((await whoami(undefined)).status, 401);
});

t.test('without teams, no team_admin token can be made', async (t) => {
  const gw = await startTestGateway(t);
  const answer = await adminCall<ErrorBody>(gw, gw.gateway.adminToken, 'POST', '/admin/tokens', {
    role: 'team_admin',
    team_id: 'team-a',
  });
  t.equal(answer.status, 400);
  t.match(answer.body.error.message, /team_id/);
});

t.test('a revocation reaches another instance over Redis, within a pub/sub hop', async (t) => {
  const dir = await tempDir(t);
  const store = await EmbeddedAdminTokenStore.open(dir);
  const hasher = new KeyHasher(Buffer.from('shared secret'));
  const logger = pino({ level: 'silent' });
  const prefix = redisPrefix(t);
  const instance = async (name: string) => {
    const link = await RedisLink.connect(
      // Seconds to answer: a revocation whose publish timed out would reach b only by its cache's TTL.
      { url: TEST_REDIS_URL, key_prefix: prefix, command_timeout: 5_000 },
      logger,
    );
    t.teardown(() => link.close());
    const events = new KeyEvents(name, link, logger, ADMIN_TOKEN_EVENTS_CHANNEL);
    events.start();
    t.teardown(() => events.stop());
    // A long TTL: only the event can make the other instance forget the token.
    const service = new AdminTokenService(store, hasher, { cacheTtlMs: 600_000, cacheMax: 100 }, events);
    return { service, events };
  };
  const { service: a, events: aEvents } = await instance('a');
  const { service: b, events: bEvents } = await instance('b');
  // Subscribing completes in the background: probe until b hears a, so the revocation cannot be missed.
  let heard = false;
  bEvents.on((id) => (heard ||= id === 'probe'));
  await until(
    () => (aEvents.emit('probe', 'changed'), heard),
    (yes) => yes,
    { what: "b hearing a's events" },
  );
  t.ok(heard, 'b hears a');
  const { token, record } = await a.create({ description: 'shared', role: 'admin' });
  t.equal((await b.lookup(token))?.id, record.id, 'b knows it (and caches it)');
  await a.revoke(record.id);
  // The event crosses Redis: b forgets the token as it arrives (its cache would keep it ten minutes).
  const seen = await until(
    async () => (await b.lookup(token))?.id,
    (id) => id === undefined,
    { what: 'b refusing the revoked token' },
  );
  t.equal(seen, undefined, 'b refuses it without waiting out its cache');
});
