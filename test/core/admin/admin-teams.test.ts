/**
 * The team side of the admin API over real HTTP: create, list, read, change and delete teams, every
 * validation error's status and body, keys joining and leaving a team, and a team's deletion refused
 * while it has keys.
 */
import t from 'tap';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { isError } from '../../helpers/errors';
import type { JsonResponse } from '../../helpers/http';
import type {
  CreatedKey,
  KeyWithActivity,
  List,
  Page,
  PublicTeam,
  TeamWithActivity,
} from '../../../core/admin/wire';

function adminOf(gw: TestGateway) {
  return async <T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<JsonResponse<T>> => {
    const res = await fetch(`${gw.gateway.adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${gw.gateway.adminToken}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: JSON.parse(text) as T, text };
  };
}

const TEAM_ID = /^team-[A-Za-z0-9_-]{12}$/;

t.test('create, list in name order, read, change (null clears), delete', async (t) => {
  const gw = await startTestGateway(t);
  const admin = adminOf(gw);
  const full = {
    name: 'platform',
    budget: { amount_micros: 50_000_000, period: 'month' },
    rate_limit_rpm: 600,
    rate_limit_tpm: 100_000,
    max_concurrent: 8,
    allowed_models: ['modela-5.5'],
    metadata: { cost_centre: 'cc-17', owner: 'ana' },
  };
  const created = await admin<PublicTeam>('POST', '/admin/teams', full);
  t.equal(created.status, 201);
  t.match(created.body.id, TEAM_ID, 'team- and 12 base64url characters');
  t.strictSame(created.body, { id: created.body.id, ...full, created_at: created.body.created_at });
  t.ok(Number.isFinite(Date.parse(created.body.created_at)));

  const bare = await admin<PublicTeam>('POST', '/admin/teams', { name: 'billing' });
  t.equal(bare.status, 201);
  t.strictSame(
    bare.body,
    { id: bare.body.id, name: 'billing', allowed_models: [], metadata: {}, created_at: bare.body.created_at },
    'optional fields absent, lists and metadata empty',
  );

  const list = await admin<List<TeamWithActivity>>('GET', '/admin/teams');
  t.equal(list.status, 200);
  t.strictSame(
    list.body.data.map((team) => team.name),
    ['billing', 'platform'],
    'name order',
  );
  for (const team of list.body.data) {
    t.equal(team.key_count, 0, `${team.name}: no keys yet`);
    t.equal(team.spent_micros, 0, `${team.name}: nothing spent`);
    t.equal(team.spent_unknown_requests, 0);
  }
  const one = await admin<TeamWithActivity>('GET', `/admin/teams/${created.body.id}`);
  t.equal(one.status, 200);
  t.strictSame(one.body, list.body.data[1], 'one team as the listing shows it');
  const narrowed = await admin<List<TeamWithActivity>>('GET', `/admin/teams?team_id=${bare.body.id}`);
  t.strictSame(narrowed.body.data, [list.body.data[0]], '?team_id= narrows the list to that team');
  const none = await admin<List<TeamWithActivity>>('GET', '/admin/teams?team_id=team-nonexistent0');
  t.strictSame(none.body, { data: [] }, 'and to nothing for a team that does not exist');

  const patched = await admin<PublicTeam>('PATCH', `/admin/teams/${created.body.id}`, {
    name: 'platform-eu',
    rate_limit_rpm: null,
    budget: null,
    max_concurrent: 2,
    allowed_models: [],
    metadata: { owner: 'li' },
  });
  t.equal(patched.status, 200);
  t.strictSame(patched.body, {
    id: created.body.id,
    name: 'platform-eu',
    rate_limit_tpm: 100_000,
    max_concurrent: 2,
    allowed_models: [],
    metadata: { owner: 'li' },
    created_at: created.body.created_at,
  });
  const reread = await admin<TeamWithActivity>('GET', `/admin/teams/${created.body.id}`);
  t.notOk(
    'rate_limit_rpm' in reread.body || 'budget' in reread.body,
    'cleared fields are gone when read again',
  );

  const deleted = await admin<PublicTeam>('DELETE', `/admin/teams/${bare.body.id}`);
  t.equal(deleted.status, 200);
  t.equal(deleted.body.name, 'billing', 'the deleted team is returned');
  isError(t, await admin('GET', `/admin/teams/${bare.body.id}`), 404, 'team_not_found', bare.body.id);
  t.strictSame(
    (await admin<List<TeamWithActivity>>('GET', '/admin/teams')).body.data.map((team) => team.id),
    [created.body.id],
  );
});

t.test('every validation error names its field, with the right status and code', async (t) => {
  const gw = await startTestGateway(t);
  const admin = adminOf(gw);
  const taken = await admin<PublicTeam>('POST', '/admin/teams', { name: 'taken' });
  const other = await admin<PublicTeam>('POST', '/admin/teams', { name: 'other' });
  const bigMetadata = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
  const creates: [string, unknown, string, ...string[]][] = [
    ['no name', {}, 'invalid_request', "field 'name' must be a string of 1 to 100 characters"],
    ['an empty name', { name: '' }, 'invalid_request', "field 'name'"],
    ['a name of 101 characters', { name: 'n'.repeat(101) }, 'invalid_request', "field 'name'"],
    ['a name not a string', { name: 7 }, 'invalid_request', "field 'name'"],
    [
      'a negative budget',
      { name: 'x', budget: { amount_micros: -1, period: 'month' } },
      'invalid_request',
      "field 'budget.amount_micros' must be a non-negative integer",
    ],
    [
      'a budget period not known',
      { name: 'x', budget: { amount_micros: 1, period: 'week' } },
      'invalid_request',
      "field 'budget.period' must be 'total' or 'month'",
    ],
    [
      'a budget without its period',
      { name: 'x', budget: { amount_micros: 1 } },
      'invalid_request',
      "field 'budget.period'",
    ],
    [
      'a budget not an object',
      { name: 'x', budget: 5 },
      'invalid_request',
      "field 'budget' must be an object",
    ],
    [
      'rpm of 0',
      { name: 'x', rate_limit_rpm: 0 },
      'invalid_request',
      "field 'rate_limit_rpm' must be a positive integer",
    ],
    [
      'tpm not whole',
      { name: 'x', rate_limit_tpm: 1.5 },
      'invalid_request',
      "field 'rate_limit_tpm' must be a positive integer",
    ],
    [
      'concurrency negative',
      { name: 'x', max_concurrent: -2 },
      'invalid_request',
      "field 'max_concurrent' must be a positive integer",
    ],
    [
      'models not a list',
      { name: 'x', allowed_models: 'modela-5.5' },
      'invalid_request',
      "field 'allowed_models' must be an array",
    ],
    [
      'an empty model name',
      { name: 'x', allowed_models: [''] },
      'invalid_request',
      "field 'allowed_models.0' must be a non-empty model name",
    ],
    [
      'metadata not an object',
      { name: 'x', metadata: ['a'] },
      'invalid_request',
      "field 'metadata' must be an object of at most 50 entries",
    ],
    [
      'a metadata value not a string',
      { name: 'x', metadata: { owner: 1 } },
      'invalid_request',
      "field 'metadata.owner' must be",
    ],
    [
      'a metadata value of 501 characters',
      { name: 'x', metadata: { owner: 'v'.repeat(501) } },
      'invalid_request',
      "field 'metadata.owner'",
      'at most 500',
    ],
    [
      'a metadata name of 101 characters',
      { name: 'x', metadata: { ['n'.repeat(101)]: 'v' } },
      'invalid_request',
      `field 'metadata.${'n'.repeat(101)}'`,
      'name at most 100 characters',
    ],
    [
      '51 metadata entries',
      { name: 'x', metadata: bigMetadata },
      'invalid_request',
      "field 'metadata' must be",
      'at most 50',
    ],
    ['an unknown field', { name: 'x', colour: 'red' }, 'invalid_request', "unknown field 'colour'"],
    ['a body not an object', '[1]', 'invalid_request', 'the request body must be a JSON object'],
    ['not JSON', '{"name":', 'invalid_json', 'not valid JSON'],
  ];
  for (const [what, body, code, ...mentions] of creates) {
    t.test(`POST: ${what}`, async (t) =>
      isError(t, await admin('POST', '/admin/teams', body), 400, code, ...mentions),
    );
  }
  t.test('a taken name: 409 on create and on rename', async (t) => {
    isError(t, await admin('POST', '/admin/teams', { name: 'taken' }), 409, 'team_name_taken', "'taken'");
    const rename = await admin('PATCH', `/admin/teams/${other.body.id}`, { name: 'taken' });
    isError(t, rename, 409, 'team_name_taken', "'taken'");
    t.equal(
      (await admin<PublicTeam>('GET', `/admin/teams/${other.body.id}`)).body.name,
      'other',
      'unchanged',
    );
    const own = await admin<PublicTeam>('PATCH', `/admin/teams/${taken.body.id}`, { name: 'taken' });
    t.equal(own.status, 200, 'a team keeping its own name is no conflict');
  });
  t.test('PATCH: null clears only optional fields, and says so', async (t) => {
    const path = `/admin/teams/${taken.body.id}`;
    isError(
      t,
      await admin('PATCH', path, { name: null }),
      400,
      'invalid_request',
      "field 'name' must be a string",
    );
    isError(
      t,
      await admin('PATCH', path, { allowed_models: null }),
      400,
      'invalid_request',
      "field 'allowed_models'",
    );
    isError(
      t,
      await admin('PATCH', path, { rate_limit_rpm: 0 }),
      400,
      'invalid_request',
      "field 'rate_limit_rpm' must be a positive integer (requests per minute), or null to clear it",
    );
    isError(t, await admin('PATCH', path, { id: 'team-mine' }), 400, 'invalid_request', "unknown field 'id'");
    isError(
      t,
      await admin('PATCH', path, { created_at: 'now' }),
      400,
      'invalid_request',
      "unknown field 'created_at'",
    );
  });
  t.test('an unknown team: 404 on read, change and delete', async (t) => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const res = await admin(
        method,
        '/admin/teams/team-nonexistent0',
        method === 'PATCH' ? { name: 'y' } : undefined,
      );
      isError(t, res, 404, 'team_not_found', 'team-nonexistent0');
    }
  });
  t.test('an unknown listing parameter', async (t) => {
    isError(t, await admin('GET', '/admin/teams?name=x'), 400, 'invalid_request', "query parameter 'name'");
  });
  t.test('without the admin token', async (t) => {
    const res = await fetch(`${gw.gateway.adminUrl}/admin/teams`);
    t.equal(res.status, 401);
  });
});

t.test('keys join and leave a team; delete is refused while it has keys', async (t) => {
  const gw = await startTestGateway(t);
  const admin = adminOf(gw);
  const team = (await admin<PublicTeam>('POST', '/admin/teams', { name: 'research' })).body;

  const missing = await admin('POST', '/admin/keys', { description: 'stray', team_id: 'team-nonexistent0' });
  isError(
    t,
    missing,
    400,
    'invalid_request',
    "field 'team_id' must be the id of an existing team",
    'team-nonexistent0',
  );
  isError(t, await admin('POST', '/admin/keys', { team_id: 5 }), 400, 'invalid_request', "field 'team_id'");

  const a = await admin<CreatedKey>('POST', '/admin/keys', { description: 'a', team_id: team.id });
  t.equal(a.status, 201);
  t.equal(a.body.record.team_id, team.id, 'created in the team');
  const b = await admin<CreatedKey>('POST', '/admin/keys', { description: 'b' });
  t.notOk('team_id' in b.body.record, 'a key without a team shows none');
  const joined = await admin<KeyWithActivity>('PATCH', `/admin/keys/${b.body.record.id}`, {
    team_id: team.id,
  });
  t.equal(joined.status, 200);
  t.equal(joined.body.team_id, team.id, 'PATCH moves a key into the team');
  isError(
    t,
    await admin('PATCH', `/admin/keys/${b.body.record.id}`, { team_id: 'team-nonexistent0' }),
    400,
    'invalid_request',
    "field 'team_id'",
  );
  t.equal(
    (await admin<KeyWithActivity>('GET', `/admin/keys/${b.body.record.id}`)).body.team_id,
    team.id,
    'a refused move changes nothing',
  );

  const members = await admin<Page<KeyWithActivity>>('GET', `/admin/keys?team_id=${team.id}`);
  t.strictSame(
    members.body.data.map((k) => k.id).sort(),
    [a.body.record.id, b.body.record.id].sort(),
    '?team_id= lists its keys',
  );
  t.equal((await admin<TeamWithActivity>('GET', `/admin/teams/${team.id}`)).body.key_count, 2);

  const rotated = await admin<CreatedKey>('POST', `/admin/keys/${a.body.record.id}/rotate`, {});
  t.equal(rotated.status, 201);
  t.equal(rotated.body.record.team_id, team.id, 'rotation keeps the team');

  const refused = await admin('DELETE', `/admin/teams/${team.id}`);
  isError(t, refused, 409, 'team_has_keys', team.id, 'has 3 keys', 'move them', 'delete them first');
  t.equal((await admin('GET', `/admin/teams/${team.id}`)).status, 200, 'the team is still there');

  const left = await admin<KeyWithActivity>('PATCH', `/admin/keys/${b.body.record.id}`, { team_id: null });
  t.notOk('team_id' in left.body, 'null takes a key out of its team');
  await admin('DELETE', `/admin/keys/${a.body.record.id}`);
  const lastOne = await admin('DELETE', `/admin/teams/${team.id}`);
  isError(t, lastOne, 409, 'team_has_keys', 'has 1 key;', 'move it');
  await admin('DELETE', `/admin/keys/${rotated.body.record.id}`);
  const members2 = await admin<Page<KeyWithActivity>>('GET', `/admin/keys?team_id=${team.id}`);
  t.strictSame(members2.body.data, [], 'no keys left in the team');
  const deleted = await admin<PublicTeam>('DELETE', `/admin/teams/${team.id}`);
  t.equal(deleted.status, 200, 'deleted once it has no keys');
  t.equal(deleted.body.id, team.id);
});

t.test('team changes are in the audit log, with what changed', async (t) => {
  const gw = await startTestGateway(t);
  const admin = adminOf(gw);
  const team = (await admin<PublicTeam>('POST', '/admin/teams', { name: 'audited', rate_limit_rpm: 5 })).body;
  await admin('PATCH', `/admin/teams/${team.id}`, { name: 'renamed', rate_limit_rpm: null });
  await admin('DELETE', `/admin/teams/${team.id}`);
  interface AuditEvent {
    action: string;
    target: { kind: string; id: string };
    changes?: Record<string, { before: unknown; after: unknown }>;
  }
  const audit = await admin<{ data: AuditEvent[] }>('GET', '/admin/audit');
  const events = audit.body.data.filter((e) => e.target.kind === 'team').reverse();
  t.strictSame(
    events.map((e) => [e.action, e.target.id]),
    [
      ['team.create', team.id],
      ['team.update', team.id],
      ['team.delete', team.id],
    ],
    'each change, oldest first',
  );
  t.match(events[0]?.changes, { name: { before: null, after: 'audited' }, rate_limit_rpm: { after: 5 } });
  t.strictSame(events[1]?.changes, {
    name: { before: 'audited', after: 'renamed' },
    rate_limit_rpm: { before: 5, after: null },
  });
  t.match(events[2]?.changes, { name: { before: 'renamed', after: null } });
});

t.test('team guardrails: set, shown, changed, cleared by null or [], checked, audited', async (t) => {
  const gw = await startTestGateway(t);
  const admin = adminOf(gw);
  const created = await admin<PublicTeam>('POST', '/admin/teams', {
    name: 'support',
    guardrails: ['pii-mask', 'strict'],
  });
  t.equal(created.status, 201);
  const id = created.body.id;
  t.strictSame(created.body.guardrails, ['pii-mask', 'strict'], 'in the created team');
  t.strictSame(
    (await admin<TeamWithActivity>('GET', `/admin/teams/${id}`)).body.guardrails,
    ['pii-mask', 'strict'],
    'GET shows them',
  );
  t.strictSame(
    (await admin<List<TeamWithActivity>>('GET', '/admin/teams')).body.data[0]?.guardrails,
    ['pii-mask', 'strict'],
    'so does the listing',
  );
  const team = await gw.gateway.teams.lookup(id);
  t.strictSame(team?.guardrails, ['pii-mask', 'strict'], 'the record the request path reads');
  const empty = await admin<PublicTeam>('POST', '/admin/teams', { name: 'empty', guardrails: [] });
  t.notOk('guardrails' in empty.body, 'an empty list on creation is none: no field');

  const changed = await admin<PublicTeam>('PATCH', `/admin/teams/${id}`, { guardrails: ['no-secrets'] });
  t.strictSame(changed.body.guardrails, ['no-secrets'], 'a PATCH replaces the list');
  const emptied = await admin<PublicTeam>('PATCH', `/admin/teams/${id}`, { guardrails: [] });
  t.equal(emptied.status, 200);
  t.notOk('guardrails' in emptied.body, '[] clears them');
  await admin('PATCH', `/admin/teams/${id}`, { guardrails: ['strict'] });
  const nulled = await admin<PublicTeam>('PATCH', `/admin/teams/${id}`, { guardrails: null });
  t.notOk('guardrails' in nulled.body, 'so does null');

  interface AuditEvent {
    action: string;
    changes: Record<string, unknown>;
  }
  const audit = await admin<{ data: AuditEvent[] }>('GET', `/admin/audit?target=${id}&limit=500`);
  t.strictSame(
    audit.body.data.reverse().map((e) => [e.action, e.changes.guardrails]),
    [
      ['team.create', { before: null, after: ['pii-mask', 'strict'] }],
      ['team.update', { before: ['pii-mask', 'strict'], after: ['no-secrets'] }],
      ['team.update', { before: ['no-secrets'], after: null }],
      ['team.update', { before: null, after: ['strict'] }],
      ['team.update', { before: ['strict'], after: null }],
    ],
    'each change of the list is in the audit log, before and after',
  );

  const name = "a guardrail name: 1 to 64 of A-Z, a-z, 0-9, '_', '.' and '-'";
  const list = 'an array of at most 32 distinct guardrail names';
  const bad: [unknown, string][] = [
    ['strict', `field 'guardrails' must be ${list}`],
    [['ok', 'not ok'], `field 'guardrails.1' must be ${name}`],
    [['n'.repeat(65)], `field 'guardrails.0' must be ${name}`],
    [['twice', 'twice'], `field 'guardrails' must be ${list}`],
    [Array.from({ length: 33 }, (_, i) => `r${i}`), `field 'guardrails' must be ${list}`],
  ];
  for (const [guardrails, message] of bad) {
    isError(
      t,
      await admin('POST', '/admin/teams', { name: 'x', guardrails }),
      400,
      'invalid_request',
      message,
    );
    const patched = await admin('PATCH', `/admin/teams/${id}`, { guardrails });
    const clears = message.startsWith("field 'guardrails' ") ? ['or null to clear it'] : [];
    isError(t, patched, 400, 'invalid_request', message, ...clears);
  }
  t.notOk('guardrails' in (await admin('GET', `/admin/teams/${id}`)).body, 'refused changes changed nothing');
});

t.test('team allowed tools: set, shown, changed, cleared by null or [], checked, audited', async (t) => {
  const gw = await startTestGateway(t);
  const admin = adminOf(gw);
  const created = await admin<PublicTeam>('POST', '/admin/teams', {
    name: 'agents',
    allowed_tools: ['demo__add', 'search__*'],
  });
  t.equal(created.status, 201);
  const id = created.body.id;
  t.strictSame(created.body.allowed_tools, ['demo__add', 'search__*'], 'in the created team');
  t.strictSame(
    (await admin<TeamWithActivity>('GET', `/admin/teams/${id}`)).body.allowed_tools,
    ['demo__add', 'search__*'],
    'GET shows them',
  );
  t.strictSame(
    (await admin<List<TeamWithActivity>>('GET', '/admin/teams')).body.data[0]?.allowed_tools,
    ['demo__add', 'search__*'],
    'so does the listing',
  );
  const team = await gw.gateway.teams.lookup(id);
  t.strictSame(team?.allowed_tools, ['demo__add', 'search__*'], 'the record the request path reads');
  const empty = await admin<PublicTeam>('POST', '/admin/teams', { name: 'empty', allowed_tools: [] });
  t.notOk('allowed_tools' in empty.body, 'an empty list on creation is every tool: no field');

  const changed = await admin<PublicTeam>('PATCH', `/admin/teams/${id}`, { allowed_tools: ['*__read'] });
  t.strictSame(changed.body.allowed_tools, ['*__read'], 'a PATCH replaces the list');
  const renamed = await admin<PublicTeam>('PATCH', `/admin/teams/${id}`, { name: 'agents 2' });
  t.strictSame(renamed.body.allowed_tools, ['*__read'], 'a PATCH without the field leaves it alone');
  const emptied = await admin<PublicTeam>('PATCH', `/admin/teams/${id}`, { allowed_tools: [] });
  t.equal(emptied.status, 200);
  t.notOk('allowed_tools' in emptied.body, '[] clears them');
  await admin('PATCH', `/admin/teams/${id}`, { allowed_tools: ['demo__*'] });
  const nulled = await admin<PublicTeam>('PATCH', `/admin/teams/${id}`, { allowed_tools: null });
  t.notOk('allowed_tools' in nulled.body, 'so does null');

  interface AuditEvent {
    action: string;
    changes: Record<string, unknown>;
  }
  const audit = await admin<{ data: AuditEvent[] }>('GET', `/admin/audit?target=${id}&limit=500`);
  t.strictSame(
    audit.body.data.reverse().map((e) => [e.action, e.changes.allowed_tools]),
    [
      ['team.create', { before: null, after: ['demo__add', 'search__*'] }],
      ['team.update', { before: ['demo__add', 'search__*'], after: ['*__read'] }],
      ['team.update', undefined],
      ['team.update', { before: ['*__read'], after: null }],
      ['team.update', { before: null, after: ['demo__*'] }],
      ['team.update', { before: ['demo__*'], after: null }],
    ],
    'each change of the list is in the audit log, before and after',
  );

  const entry =
    "a tool name or glob: 1 to 160 of A-Z, a-z, 0-9, '_', '.', '-' and '*' (any run of characters)";
  const list = 'an array of at most 100 distinct tool names or globs';
  const bad: [unknown, string][] = [
    ['demo__add', `field 'allowed_tools' must be ${list}`],
    [['ok', 'not ok'], `field 'allowed_tools.1' must be ${entry}`],
    [['t'.repeat(161)], `field 'allowed_tools.0' must be ${entry}`],
    [['twice', 'twice'], `field 'allowed_tools' must be ${list}`],
    [Array.from({ length: 101 }, (_, i) => `s__t${i}`), `field 'allowed_tools' must be ${list}`],
  ];
  for (const [allowed_tools, message] of bad) {
    isError(
      t,
      await admin('POST', '/admin/teams', { name: 'x', allowed_tools }),
      400,
      'invalid_request',
      message,
    );
    const patched = await admin('PATCH', `/admin/teams/${id}`, { allowed_tools });
    const clears = message.startsWith("field 'allowed_tools' ") ? ['or null to clear it'] : [];
    isError(t, patched, 400, 'invalid_request', message, ...clears);
  }
  t.notOk(
    'allowed_tools' in (await admin('GET', `/admin/teams/${id}`)).body,
    'refused changes changed nothing',
  );
});
