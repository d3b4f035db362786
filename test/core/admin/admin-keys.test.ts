/**
 * The key side of the admin API over real HTTP: PATCH, rotate, expiry, paged listings, bad input, and
 * that no answer ever carries a key's hash. Where an expiry is the subject, the wall clock is held still
 * (frozen Date) and moved past it, so no check depends on how fast the machine answers.
 */
import t, { type Test } from 'tap';
import { frozenDate } from '../../helpers/clock';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { isError } from '../../helpers/errors';
import { postJson, type JsonResponse } from '../../helpers/http';

interface PublicKey {
  id: string;
  description: string;
  enabled: boolean;
  status: string;
  allowed_models: string[];
  rate_limit_rpm?: number;
  rate_limit_tpm?: number;
  max_concurrent?: number;
  expires_at?: string;
  budget?: { amount_micros: number; period: string };
  guardrails?: string[];
  allowed_tools?: string[];
  created_at: string;
}
/** A key as GET shows it, without the activity fields it adds (last used, spend). */
function settingsOf(shown: object): object {
  const { last_used_at, spent_micros, spent_unknown_requests, ...settings } = shown as Record<
    string,
    unknown
  >;
  if (last_used_at === undefined || spent_micros === undefined || spent_unknown_requests === undefined) {
    throw new Error('GET /admin/keys/{id} shows no activity');
  }
  return settings;
}

type Page = { data: PublicKey[]; next_cursor: string | null };

const ask = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };

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

/** Every hash the store holds, to look for in answers. */
async function hashesOf(gw: TestGateway): Promise<string[]> {
  const all = await gw.gateway.keys.page({ limit: 10_000, now: new Date().toISOString() });
  return all.map((k) => k.hash);
}

function noHashes(t: Test, text: string, hashes: string[], what: string): void {
  t.notOk(
    hashes.some((h) => text.includes(h)),
    `${what}: no hash value in the answer`,
  );
  t.notOk(/"hash"/.test(text), `${what}: no hash field`);
}

const chat = (gw: TestGateway, key: string) => postJson(`${gw.url}/v1/chat/completions`, ask, key);

t.test(
  'PATCH changes each field, null clears, the record is returned; creation takes expiry and budget',
  async (t) => {
    const gw = await startTestGateway(t);
    const admin = adminOf(gw);
    const created = await admin<{ key: string; record: PublicKey }>('POST', '/admin/keys', {
      description: 'billing',
      expires_at: '2099-01-01T01:00:00+01:00',
      budget: { amount_micros: 5_000_000, period: 'month' },
    });
    t.equal(created.status, 201);
    const { key, record } = created.body;
    t.equal(record.expires_at, '2099-01-01T00:00:00.000Z', 'the expiry is kept in UTC');
    t.strictSame(record.budget, { amount_micros: 5_000_000, period: 'month' });
    t.equal(record.status, 'enabled');
    t.notOk('hash' in record, 'no hash in the created record');

    const id = record.id;
    const patched = await admin<PublicKey>('PATCH', `/admin/keys/${id}`, {
      description: 'billing v2',
      allowed_models: ['modela-5.5'],
      rate_limit_rpm: 60,
      rate_limit_tpm: 50_000,
      max_concurrent: 4,
      expires_at: '2098-05-05T05:05:05Z',
      budget: { amount_micros: 7_000_000, period: 'total' },
    });
    t.equal(patched.status, 200);
    t.match(patched.body, {
      id,
      description: 'billing v2',
      allowed_models: ['modela-5.5'],
      rate_limit_rpm: 60,
      rate_limit_tpm: 50_000,
      max_concurrent: 4,
      expires_at: '2098-05-05T05:05:05.000Z',
      budget: { amount_micros: 7_000_000, period: 'total' },
      enabled: true,
    });
    t.strictSame(
      settingsOf((await admin('GET', `/admin/keys/${id}`)).body),
      patched.body,
      'GET one shows the same, and what the key spent',
    );

    const disabled = await admin<PublicKey>('PATCH', `/admin/keys/${id}`, { enabled: false });
    t.equal(disabled.body.status, 'disabled');
    t.equal(disabled.body.description, 'billing v2', 'fields not given are kept');
    t.equal((await chat(gw, key)).status, 403, 'a key disabled by PATCH is refused at once');
    await admin('PATCH', `/admin/keys/${id}`, { enabled: true });
    t.equal((await chat(gw, key)).status, 200, 'and works again when enabled');

    const cleared = await admin<PublicKey>('PATCH', `/admin/keys/${id}`, {
      rate_limit_rpm: null,
      rate_limit_tpm: null,
      max_concurrent: null,
      expires_at: null,
      budget: null,
    });
    t.equal(cleared.status, 200);
    for (const field of ['rate_limit_rpm', 'rate_limit_tpm', 'max_concurrent', 'expires_at', 'budget']) {
      t.notOk(field in cleared.body, `null cleared ${field}`);
    }
    const unchanged = await admin<PublicKey>('PATCH', `/admin/keys/${id}`, {});
    t.strictSame(unchanged.body, cleared.body, 'an empty PATCH changes nothing');
  },
);

t.test(
  'guardrails: created, shown, changed, cleared by null or [], kept by rotation, in the audit log',
  async (t) => {
    const gw = await startTestGateway(t);
    const admin = adminOf(gw);
    const created = await admin<{ key: string; record: PublicKey }>('POST', '/admin/keys', {
      description: 'support bot',
      guardrails: ['pii-mask', 'no.secrets_v2'],
    });
    t.equal(created.status, 201);
    const id = created.body.record.id;
    t.strictSame(created.body.record.guardrails, ['pii-mask', 'no.secrets_v2'], 'in the created record');
    const shown = (await admin<PublicKey>('GET', `/admin/keys/${id}`)).body;
    t.strictSame(shown.guardrails, ['pii-mask', 'no.secrets_v2'], 'GET shows them');
    const listed = (await admin<Page>('GET', '/admin/keys')).body.data.find((k) => k.id === id);
    t.strictSame(listed?.guardrails, ['pii-mask', 'no.secrets_v2'], 'and so does the listing');
    t.strictSame(
      (await gw.gateway.keys.findById(id))?.guardrails,
      ['pii-mask', 'no.secrets_v2'],
      'the stored record, as the request path reads it',
    );

    const none = await admin<{ record: PublicKey }>('POST', '/admin/keys', { guardrails: [] });
    t.equal(none.status, 201);
    t.notOk('guardrails' in none.body.record, 'an empty list on creation is none: no field');
    const plain = await admin<{ record: PublicKey }>('POST', '/admin/keys', {});
    t.notOk('guardrails' in plain.body.record, 'nor without one');

    const changed = await admin<PublicKey>('PATCH', `/admin/keys/${id}`, { guardrails: ['strict'] });
    t.equal(changed.status, 200);
    t.strictSame(changed.body.guardrails, ['strict'], 'a PATCH replaces the list');
    t.equal(changed.body.description, 'support bot', 'and keeps the rest');

    const rotated = await admin<{ record: PublicKey }>('POST', `/admin/keys/${id}/rotate`);
    t.strictSame(rotated.body.record.guardrails, ['strict'], 'the replacement keeps them');

    const emptied = await admin<PublicKey>('PATCH', `/admin/keys/${id}`, { guardrails: [] });
    t.equal(emptied.status, 200);
    t.notOk('guardrails' in emptied.body, '[] clears them');
    t.notOk('guardrails' in ((await gw.gateway.keys.findById(id)) ?? {}), 'from the stored record too');
    await admin('PATCH', `/admin/keys/${id}`, { guardrails: ['strict'] });
    const nulled = await admin<PublicKey>('PATCH', `/admin/keys/${id}`, { guardrails: null });
    t.equal(nulled.status, 200);
    t.notOk('guardrails' in nulled.body, 'so does null');

    const audit = await admin<{ data: { action: string; changes: Record<string, unknown> }[] }>(
      'GET',
      `/admin/audit?target=${id}&limit=500`,
    );
    const changes = audit.body.data.map(
      (entry) => `${entry.action} ${JSON.stringify(entry.changes.guardrails)}`,
    );
    t.strictSame(
      changes.reverse(),
      [
        'key.create {"before":null,"after":["pii-mask","no.secrets_v2"]}',
        'key.update {"before":["pii-mask","no.secrets_v2"],"after":["strict"]}',
        'key.rotate undefined',
        'key.update {"before":["strict"],"after":null}',
        'key.update {"before":null,"after":["strict"]}',
        'key.update {"before":["strict"],"after":null}',
      ],
      'each change of the list is in the audit log, before and after',
    );
  },
);

t.test('guardrails: a bad list is 400 naming the field, on create and on PATCH', async (t) => {
  const gw = await startTestGateway(t);
  const admin = adminOf(gw);
  const id = (await admin<{ record: PublicKey }>('POST', '/admin/keys', { guardrails: ['kept'] })).body.record
    .id;
  const name = "a guardrail name: 1 to 64 of A-Z, a-z, 0-9, '_', '.' and '-'";
  const list = 'an array of at most 32 distinct guardrail names';
  const cases: [string, unknown, ...string[]][] = [
    ['not an array', 'pii-mask', `field 'guardrails' must be ${list}`],
    ['a number in it', ['pii-mask', 7], `field 'guardrails.1' must be ${name}`],
    ['an empty name', [''], `field 'guardrails.0' must be ${name}`],
    ['a name of 65 characters', ['n'.repeat(65)], `field 'guardrails.0' must be ${name}`],
    ['a space in a name', ['pii mask'], `field 'guardrails.0' must be ${name}`],
    ['a slash in a name', ['a/b'], `field 'guardrails.0' must be ${name}`],
    ['a name twice', ['pii-mask', 'strict', 'pii-mask'], `field 'guardrails' must be ${list}`],
    ['33 names', Array.from({ length: 33 }, (_, i) => `rule-${i}`), `field 'guardrails' must be ${list}`],
  ];
  for (const [what, guardrails, ...mentions] of cases) {
    await t.test(what, async (t) => {
      isError(t, await admin('POST', '/admin/keys', { guardrails }), 400, 'invalid_request', ...mentions);
      // null clears the list, not a name in it: only the list's message offers it.
      const clears = mentions[0]!.startsWith("field 'guardrails' ") ? ['or null to clear it'] : [];
      const patched = await admin('PATCH', `/admin/keys/${id}`, { guardrails });
      isError(t, patched, 400, 'invalid_request', ...mentions, ...clears);
      t.equal(clears.length === 0, !patched.text.includes('null'), 'null is offered for the list only');
    });
  }
  const createNull = await admin('POST', '/admin/keys', { guardrails: null });
  isError(t, createNull, 400, 'invalid_request', `field 'guardrails' must be ${list}`);
  t.notOk(createNull.text.includes('null'), 'creation does not offer null to clear');

  const edge = ['n'.repeat(64), 'A.b_c-9', ...Array.from({ length: 30 }, (_, i) => `rule-${i}`)];
  const accepted = await admin<PublicKey>('PATCH', `/admin/keys/${id}`, { guardrails: edge });
  t.equal(accepted.status, 200, '32 names, one of 64 characters, every allowed character');
  t.strictSame(accepted.body.guardrails, edge);
  await admin('PATCH', `/admin/keys/${id}`, { guardrails: ['kept'] });
  await admin('PATCH', `/admin/keys/${id}`, { guardrails: ['x', 'x'] });
  t.strictSame(
    (await admin<PublicKey>('GET', `/admin/keys/${id}`)).body.guardrails,
    ['kept'],
    'a refused change changed nothing',
  );
});

t.test(
  'allowed tools: created, shown, changed, cleared by null or [], kept by rotation, in the audit log',
  async (t) => {
    const gw = await startTestGateway(t);
    const admin = adminOf(gw);
    const globs = ['demo__add', 'search__*', '*__read.v2'];
    const created = await admin<{ key: string; record: PublicKey }>('POST', '/admin/keys', {
      description: 'agent',
      allowed_tools: globs,
    });
    t.equal(created.status, 201);
    const id = created.body.record.id;
    t.strictSame(created.body.record.allowed_tools, globs, 'in the created record, in their order');
    t.strictSame((await admin<PublicKey>('GET', `/admin/keys/${id}`)).body.allowed_tools, globs, 'GET');
    const listed = (await admin<Page>('GET', '/admin/keys')).body.data.find((k) => k.id === id);
    t.strictSame(listed?.allowed_tools, globs, 'and the listing show them');
    t.strictSame(
      (await gw.gateway.keys.findById(id))?.allowed_tools,
      globs,
      'the stored record, as the request path reads it',
    );

    const none = await admin<{ record: PublicKey }>('POST', '/admin/keys', { allowed_tools: [] });
    t.equal(none.status, 201);
    t.notOk('allowed_tools' in none.body.record, 'an empty list on creation is every tool: no field');
    const plain = await admin<{ record: PublicKey }>('POST', '/admin/keys', {});
    t.notOk('allowed_tools' in plain.body.record, 'nor without one');

    const changed = await admin<PublicKey>('PATCH', `/admin/keys/${id}`, { allowed_tools: ['demo__*'] });
    t.equal(changed.status, 200);
    t.strictSame(changed.body.allowed_tools, ['demo__*'], 'a PATCH replaces the list');
    t.equal(changed.body.description, 'agent', 'and keeps the rest');
    const guarded = await admin<PublicKey>('PATCH', `/admin/keys/${id}`, { guardrails: ['strict'] });
    t.strictSame(guarded.body.allowed_tools, ['demo__*'], 'a PATCH without the field leaves it alone');

    const rotated = await admin<{ record: PublicKey }>('POST', `/admin/keys/${id}/rotate`);
    t.strictSame(rotated.body.record.allowed_tools, ['demo__*'], 'the replacement keeps them');

    const emptied = await admin<PublicKey>('PATCH', `/admin/keys/${id}`, { allowed_tools: [] });
    t.equal(emptied.status, 200);
    t.notOk('allowed_tools' in emptied.body, '[] clears them');
    t.notOk('allowed_tools' in ((await gw.gateway.keys.findById(id)) ?? {}), 'from the stored record too');
    await admin('PATCH', `/admin/keys/${id}`, { allowed_tools: ['demo__add'] });
    const nulled = await admin<PublicKey>('PATCH', `/admin/keys/${id}`, { allowed_tools: null });
    t.equal(nulled.status, 200);
    t.notOk('allowed_tools' in nulled.body, 'so does null');

    const audit = await admin<{ data: { action: string; changes: Record<string, unknown> }[] }>(
      'GET',
      `/admin/audit?target=${id}&limit=500`,
    );
    const changes = audit.body.data.map(
      (entry) => `${entry.action} ${JSON.stringify(entry.changes.allowed_tools)}`,
    );
    t.strictSame(
      changes.reverse(),
      [
        `key.create {"before":null,"after":${JSON.stringify(globs)}}`,
        `key.update {"before":${JSON.stringify(globs)},"after":["demo__*"]}`,
        'key.update undefined',
        'key.rotate undefined',
        'key.update {"before":["demo__*"],"after":null}',
        'key.update {"before":null,"after":["demo__add"]}',
        'key.update {"before":["demo__add"],"after":null}',
      ],
      'each change of the list is in the audit log, before and after',
    );
  },
);

t.test('allowed tools: a bad list is 400 naming the field, on create and on PATCH', async (t) => {
  const gw = await startTestGateway(t);
  const admin = adminOf(gw);
  const id = (await admin<{ record: PublicKey }>('POST', '/admin/keys', { allowed_tools: ['kept'] })).body
    .record.id;
  const entry =
    "a tool name or glob: 1 to 160 of A-Z, a-z, 0-9, '_', '.', '-' and '*' (any run of characters)";
  const list = 'an array of at most 100 distinct tool names or globs';
  const cases: [string, unknown, ...string[]][] = [
    ['not an array', 'demo__add', `field 'allowed_tools' must be ${list}`],
    ['a number in it', ['demo__add', 7], `field 'allowed_tools.1' must be ${entry}`],
    ['an empty entry', [''], `field 'allowed_tools.0' must be ${entry}`],
    ['an entry of 161 characters', ['t'.repeat(161)], `field 'allowed_tools.0' must be ${entry}`],
    ['a space in an entry', ['demo add'], `field 'allowed_tools.0' must be ${entry}`],
    ['a slash in an entry', ['demo/add'], `field 'allowed_tools.0' must be ${entry}`],
    ['a ? (not a glob here)', ['demo__ad?'], `field 'allowed_tools.0' must be ${entry}`],
    ['an entry twice', ['a__*', 'b', 'a__*'], `field 'allowed_tools' must be ${list}`],
    [
      '101 entries',
      Array.from({ length: 101 }, (_, i) => `s__t${i}`),
      `field 'allowed_tools' must be ${list}`,
    ],
  ];
  for (const [what, allowed_tools, ...mentions] of cases) {
    await t.test(what, async (t) => {
      isError(t, await admin('POST', '/admin/keys', { allowed_tools }), 400, 'invalid_request', ...mentions);
      // null clears the list, not an entry in it: only the list's message offers it.
      const clears = mentions[0]!.startsWith("field 'allowed_tools' ") ? ['or null to clear it'] : [];
      const patched = await admin('PATCH', `/admin/keys/${id}`, { allowed_tools });
      isError(t, patched, 400, 'invalid_request', ...mentions, ...clears);
      t.equal(clears.length === 0, !patched.text.includes('null'), 'null is offered for the list only');
    });
  }
  const createNull = await admin('POST', '/admin/keys', { allowed_tools: null });
  isError(t, createNull, 400, 'invalid_request', `field 'allowed_tools' must be ${list}`);
  t.notOk(createNull.text.includes('null'), 'creation does not offer null to clear');

  const edge = ['t'.repeat(160), 'Az09_.-*', '*', ...Array.from({ length: 97 }, (_, i) => `s__t${i}`)];
  const accepted = await admin<PublicKey>('PATCH', `/admin/keys/${id}`, { allowed_tools: edge });
  t.equal(accepted.status, 200, '100 entries, one of 160 characters, every allowed character');
  t.strictSame(accepted.body.allowed_tools, edge);
  await admin('PATCH', `/admin/keys/${id}`, { allowed_tools: ['kept'] });
  await admin('PATCH', `/admin/keys/${id}`, { allowed_tools: ['x', 'x'] });
  t.strictSame(
    (await admin<PublicKey>('GET', `/admin/keys/${id}`)).body.allowed_tools,
    ['kept'],
    'a refused change changed nothing',
  );
});

t.test('bad input: 400 naming the field, 404 for an unknown id, in the contract body', async (t) => {
  const gw = await startTestGateway(t);
  const admin = adminOf(gw);
  const id = (await admin<{ record: PublicKey }>('POST', '/admin/keys', {})).body.record.id;
  const bad = async (body: unknown, ...mentions: string[]) => {
    const res = await admin('PATCH', `/admin/keys/${id}`, body);
    isError(t, res, 400, 'invalid_request', ...mentions);
  };
  await bad({ nope: 1 }, "unknown field 'nope'");
  await bad({ hash: 'x' }, "unknown field 'hash'");
  await bad(
    { budget: { amount_micros: -1, period: 'total' } },
    "'budget.amount_micros'",
    'non-negative integer',
  );
  await bad({ budget: { amount_micros: 1.5, period: 'total' } }, "'budget.amount_micros'", 'integer');
  await bad({ budget: { amount_micros: 1, period: 'week' } }, "'budget.period'", "'total' or 'month'");
  await bad(
    { budget: { amount_micros: 1, period: 'total', currency: 'EUR' } },
    "unknown field 'budget.currency'",
  );
  await bad({ budget: { period: 'total' } }, "'budget.amount_micros'");
  await bad({ budget: 5 }, "'budget'", 'null to clear');
  await bad({ expires_at: 'tomorrow' }, "'expires_at'", 'ISO 8601');
  await bad({ expires_at: '2030-01-01T00:00:00' }, "'expires_at'", 'time zone');
  await bad({ expires_at: 1_900_000_000 }, "'expires_at'");
  await bad({ rate_limit_rpm: 0 }, "'rate_limit_rpm'", 'positive integer');
  await bad({ rate_limit_rpm: 2.5 }, "'rate_limit_rpm'");
  await bad({ rate_limit_tpm: 0 }, "'rate_limit_tpm'", 'positive integer (tokens per minute)');
  await bad({ rate_limit_tpm: 'lots' }, "'rate_limit_tpm'", 'null to clear');
  await bad({ max_concurrent: -2 }, "'max_concurrent'", 'positive integer (requests in flight at once)');
  await bad({ max_concurrent: 1.5 }, "'max_concurrent'");
  await bad({ description: 'x'.repeat(501) }, "'description'", '500');
  await bad({ allowed_models: ['modela-5.5', ''] }, "'allowed_models.1'", 'a non-empty model name');
  await bad({ allowed_models: 'modela-5.5' }, "'allowed_models'");
  await bad({ enabled: 'yes' }, "'enabled'", 'true or false');
  await bad([], 'JSON object');
  isError(t, await admin('PATCH', `/admin/keys/${id}`, '{nope'), 400, 'invalid_json');
  isError(
    t,
    await admin('POST', '/admin/keys', { budget: { amount_micros: -5, period: 'month' } }),
    400,
    'invalid_request',
    "'budget.amount_micros'",
  );
  isError(
    t,
    await admin('POST', '/admin/keys', { expires_at: 'soon' }),
    400,
    'invalid_request',
    "'expires_at'",
  );
  const createNull = await admin('POST', '/admin/keys', { expires_at: null });
  isError(t, createNull, 400, 'invalid_request', "'expires_at'");
  t.notOk(createNull.text.includes('null'), 'creation does not offer null to clear');
  t.ok(
    (await admin('PATCH', `/admin/keys/${id}`, { expires_at: 'soon' })).text.includes('or null to clear it'),
    'a PATCH does',
  );
  isError(
    t,
    await admin('POST', '/admin/keys', { enabled: false }),
    400,
    'invalid_request',
    "unknown field 'enabled'",
  );
  isError(
    t,
    await admin('POST', `/admin/keys/${id}/rotate`, { disable_old_after: -1 }),
    400,
    'invalid_request',
    "'disable_old_after'",
  );
  isError(
    t,
    await admin('POST', `/admin/keys/${id}/rotate`, { disable_old_after: '10s' }),
    400,
    'invalid_request',
    "'disable_old_after'",
  );
  isError(
    t,
    await admin('POST', `/admin/keys/${id}/rotate`, { grace: 1 }),
    400,
    'invalid_request',
    "unknown field 'grace'",
  );

  for (const [method, path, body] of [
    ['PATCH', '/admin/keys/sk-missing00', { description: 'x' }],
    ['GET', '/admin/keys/sk-missing00', undefined],
    ['POST', '/admin/keys/sk-missing00/rotate', {}],
    ['POST', '/admin/keys/sk-missing00/disable', undefined],
    ['DELETE', '/admin/keys/sk-missing00', undefined],
  ] as const) {
    isError(t, await admin(method, path, body), 404, 'key_not_found', 'sk-missing00');
  }
  isError(t, await admin('POST', `/admin/keys/${id}/explode`), 404, 'not_found');
  t.equal(
    (await admin<PublicKey>('GET', `/admin/keys/${id}`)).body.description,
    '',
    'bad input changed nothing',
  );
});

t.test(
  'rotate: same settings, new key shown once; the old key works on, or until the grace period ends',
  async (t) => {
    const gw = await startTestGateway(t);
    const admin = adminOf(gw);
    const created = await admin<{ key: string; record: PublicKey }>('POST', '/admin/keys', {
      description: 'payments',
      allowed_models: ['modela-5.5'],
      rate_limit_rpm: 120,
      rate_limit_tpm: 90_000,
      max_concurrent: 8,
      expires_at: '2099-12-31T00:00:00Z',
      budget: { amount_micros: 7_000_000, period: 'total' },
    });
    const old = created.body;

    const kept = await admin<{ key: string; record: PublicKey; replaces: string }>(
      'POST',
      `/admin/keys/${old.record.id}/rotate`,
    );
    t.equal(kept.status, 201);
    t.equal(kept.body.replaces, old.record.id);
    t.match(kept.body.key, /^sk-[A-Za-z0-9_-]{43}$/);
    t.not(kept.body.record.id, old.record.id);
    t.strictSame(
      { ...kept.body.record, id: undefined, created_at: undefined },
      {
        ...old.record,
        id: undefined,
        created_at: undefined,
        description: `payments (rotated from ${old.record.id})`,
      },
      'the same settings, the description marked with the old id',
    );
    t.equal((await chat(gw, kept.body.key)).status, 200, 'the new key works');
    t.equal((await chat(gw, old.key)).status, 200, 'without disable_old_after the old key keeps working');
    const oldNow = (await admin<PublicKey>('GET', `/admin/keys/${old.record.id}`)).body;
    t.strictSame(settingsOf(oldNow), old.record, 'and is unchanged');
    const listing = (await admin('GET', '/admin/keys')).text;
    t.notOk(listing.includes(kept.body.key), 'the full new key is never listed');

    // Rotating the rotated key replaces the mark rather than piling marks up.
    const again = await admin<{ key: string; record: PublicKey }>(
      'POST',
      `/admin/keys/${kept.body.record.id}/rotate`,
      {
        disable_old_after: 0,
      },
    );
    t.equal(again.body.record.description, `payments (rotated from ${kept.body.record.id})`);
    isError(t, await chat(gw, kept.body.key), 401, 'unauthorized');
    t.equal(
      (await chat(gw, again.body.key)).status,
      200,
      'disable_old_after 0: the old key stops at once, the new works',
    );

    const date = frozenDate(t);
    const graced = await admin<{ key: string; record: PublicKey }>(
      'POST',
      `/admin/keys/${again.body.record.id}/rotate`,
      {
        disable_old_after: 1,
      },
    );
    const started = Date.now();
    const oldRecord = (await admin<PublicKey>('GET', `/admin/keys/${again.body.record.id}`)).body;
    t.ok(
      Math.abs(Date.parse(oldRecord.expires_at!) - (started + 1000)) < 500,
      `the old key expires in 1 s: ${oldRecord.expires_at}`,
    );
    t.equal(oldRecord.enabled, true, 'the old key stays enabled: expiry, not a timer, ends it');
    t.equal((await chat(gw, again.body.key)).status, 200, 'the old key works during the grace period');
    date.tick(1_100); // the grace period's second passes
    isError(t, await chat(gw, again.body.key), 401, 'unauthorized');
    t.equal((await chat(gw, graced.body.key)).status, 200, 'the new key works after it');
    t.equal(
      graced.body.record.expires_at,
      '2099-12-31T00:00:00.000Z',
      'the new key keeps the original expiry',
    );

    // A grace period never lengthens an expiry that comes sooner.
    const soon = new Date(Date.now() + 60_000).toISOString();
    const short = await admin<{ record: PublicKey }>('POST', '/admin/keys', { expires_at: soon });
    await admin('POST', `/admin/keys/${short.body.record.id}/rotate`, { disable_old_after: 3600 });
    t.equal((await admin<PublicKey>('GET', `/admin/keys/${short.body.record.id}`)).body.expires_at, soon);
  },
);

t.test(
  'expiry: a key works until expires_at, then gets exactly the unknown key answer, cache or not',
  async (t) => {
    const gw = await startTestGateway(t);
    const admin = adminOf(gw);
    const date = frozenDate(t);
    const expiresAt = Date.now() + 300;
    const created = await admin<{ key: string; record: PublicKey }>('POST', '/admin/keys', {
      expires_at: new Date(expiresAt).toISOString(),
    });
    t.equal((await chat(gw, created.body.key)).status, 200, 'works before its expiry (and is now cached)');
    date.tick(320); // its expiry passes: judged on each request, the record cached or not
    const expired = await chat(gw, created.body.key);
    const unknown = await chat(gw, `sk-${'A'.repeat(43)}`);
    isError(t, expired, 401, 'unauthorized');
    t.equal(expired.text, unknown.text, 'the same body as an unknown key');
    t.equal(
      (await postJson(`${gw.url}/v1/chat/completions`, ask, undefined, { 'x-api-key': created.body.key }))
        .status,
      401,
      'by x-api-key too',
    );
    const shown = (await admin<PublicKey>('GET', `/admin/keys/${created.body.record.id}`)).body;
    t.equal(shown.status, 'expired');
    t.equal(shown.enabled, true, 'expired is not disabled');
    await admin('PATCH', `/admin/keys/${created.body.record.id}`, { expires_at: null });
    t.equal((await chat(gw, created.body.key)).status, 200, 'clearing the expiry revives the key');
  },
);

t.test('listings page on the server, filter, and never carry a hash', async (t) => {
  const gw = await startTestGateway(t);
  const admin = adminOf(gw);
  const past = new Date(Date.now() - 60_000).toISOString();
  for (let i = 0; i < 250; i++) {
    const { record } = await gw.gateway.keys.create({
      description: i % 10 === 0 ? `Batch team-${i}` : `batch ${i}`,
      ...(i % 7 === 0 ? { expires_at: past } : {}),
    });
    if (i % 5 === 0) await gw.gateway.keys.update(record.id, { enabled: false });
  }
  const total = 251; // and the test gateway's own key
  const hashes = await hashesOf(gw);
  t.equal(hashes.length, total);

  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: JsonResponse<Page> = await admin<Page>(
      'GET',
      `/admin/keys?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    t.equal(res.status, 200);
    noHashes(t, res.text, hashes, `page ${pages + 1}`);
    seen.push(...res.body.data.map((k) => k.id));
    cursor = res.body.next_cursor;
    pages++;
  } while (cursor && pages < 10);
  t.equal(pages, 3, '251 keys in pages of 100');
  t.equal(seen.length, total, 'every key once');
  t.equal(new Set(seen).size, total, 'no key twice');
  t.strictSame(seen, [...seen].sort(), 'in id order');

  const def = await admin<Page>('GET', '/admin/keys');
  t.equal(def.body.data.length, 100, 'the default limit is 100');
  const max = await admin<Page>('GET', '/admin/keys?limit=500');
  t.equal(max.body.data.length, total);
  t.equal(max.body.next_cursor, null, 'the last page has no next cursor');

  const all = max.body.data;
  const count = (status: string) => all.filter((k) => k.status === status).length;
  const expected = { expired: 0, disabled: 0, enabled: 1 };
  for (let i = 0; i < 250; i++) {
    if (i % 7 === 0) expected.expired++;
    else if (i % 5 === 0) expected.disabled++;
    else expected.enabled++;
  }
  for (const status of ['enabled', 'disabled', 'expired'] as const) {
    t.equal(count(status), expected[status], `${status} in the listing`);
    const filtered: string[] = [];
    let next: string | null = null;
    do {
      const res: JsonResponse<Page> = await admin<Page>(
        'GET',
        `/admin/keys?status=${status}&limit=17${next ? `&cursor=${next}` : ''}`,
      );
      t.ok(res.body.data.every((k) => k.status === status));
      filtered.push(...res.body.data.map((k) => k.id));
      next = res.body.next_cursor;
    } while (next);
    t.equal(filtered.length, expected[status], `status=${status} pages to the same count`);
  }

  const team = await admin<Page>('GET', '/admin/keys?q=TEAM&limit=500');
  t.equal(team.body.data.length, 25, 'q matches the description in any case');
  const teamDisabled = await admin<Page>('GET', '/admin/keys?q=team&status=disabled&limit=500');
  t.strictSame(
    teamDisabled.body.data.map((k) => k.description).sort(),
    all
      .filter((k) => /team/i.test(k.description) && k.status === 'disabled')
      .map((k) => k.description)
      .sort(),
    'q and status combine',
  );
  const one = all[42]!;
  const byId = await admin<Page>('GET', `/admin/keys?q=${one.id.slice(3).toLowerCase()}`);
  t.ok(
    byId.body.data.some((k) => k.id === one.id),
    'q matches the id',
  );

  for (const query of [
    'limit=0',
    'limit=501',
    'limit=abc',
    'limit=-1',
    'status=gone',
    'sort=id',
    'limit=5&limit=6',
  ]) {
    isError(t, await admin('GET', `/admin/keys?${query}`), 400, 'invalid_request', 'query parameter');
  }

  // Every other answer with a key record carries no hash either.
  const created = await admin('POST', '/admin/keys', { description: 'scan' });
  const id = (created.body as { record: PublicKey }).record.id;
  const answers = [
    created,
    await admin('GET', `/admin/keys/${id}`),
    await admin('PATCH', `/admin/keys/${id}`, { description: 'scan 2' }),
    await admin('POST', `/admin/keys/${id}/disable`),
    await admin('POST', `/admin/keys/${id}/enable`),
    await admin('POST', `/admin/keys/${id}/rotate`, { disable_old_after: 0 }),
  ];
  const allHashes = await hashesOf(gw);
  answers.push(await admin('DELETE', `/admin/keys/${id}`));
  for (const [i, res] of answers.entries()) {
    t.ok(res.status < 300, `answer ${i} succeeded`);
    noHashes(t, res.text, allHashes, `answer ${i}`);
  }
});
