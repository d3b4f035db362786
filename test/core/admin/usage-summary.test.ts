/**
 * GET /admin/usage/summary over real HTTP: real chat calls with two keys, then the totals by key and by
 * model match the records the calls left; real calls on chat completions, responses and embeddings,
 * then the totals by endpoint; bad parameters get the contract's 400.
 */
import t from 'tap';
import type { UsageRecord, UsageSummaryRow } from '../../../core/stores/usage-store';
import { totalsBy, type GroupOf } from '../../helpers/usage-totals';
import { startTestGateway } from '../../helpers/gateway';
import { postJson, type ErrorBody } from '../../helpers/http';
import { eventually } from '../../helpers/wait';

const PRICED = 'modela-5.5';
const UNPRICED = 'modelb-3.5-flash';
const EMBEDDING = 'modela-embedding-3-small';

/** The summary's order: strings by code unit, as `<` compares them (not by locale). */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

t.test('usage summary by key and by model matches the records of real calls', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    (doc.prices as Record<string, unknown>)[PRICED] = { input_per_mtok: 1.25, output_per_mtok: 10 };
  });
  const admin = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${gw.gateway.adminUrl}${path}`, {
      headers: { authorization: `Bearer ${gw.gateway.adminToken}` },
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const keyA = gw.key;
  const keyB = await gw.createKey({ description: 'second' });
  const calls: [string, string][] = [
    [keyA, PRICED],
    [keyA, PRICED],
    [keyA, UNPRICED],
    [keyB, PRICED],
    [keyB, UNPRICED],
    [keyB, UNPRICED],
  ];
  const ids: string[] = [];
  for (const [i, [key, model]] of calls.entries()) {
    const id = `summary-${process.pid}-${i}`;
    ids.push(id);
    const res = await postJson(
      `${gw.url}/v1/chat/completions`,
      { model, messages: [{ role: 'user', content: `call ${i}: say something` }] },
      key,
      { 'x-request-id': id },
    );
    t.equal(res.status, 200, `call ${i} (${model}) answered`);
  }
  let records: UsageRecord[] = [];
  await eventually(async () => {
    records = (await admin<{ data: UsageRecord[] }>('/admin/usage')).body.data.filter((r) =>
      ids.includes(r.id),
    );
    return records.length === calls.length;
  });
  t.equal(records.length, calls.length, 'one record per call');
  for (const r of records) {
    if (r.model === PRICED) {
      t.equal(
        r.cost_micros,
        Math.round(r.prompt_tokens * 1.25) + r.completion_tokens * 10,
        'a priced call: integer micro-units',
      );
    } else {
      t.equal(r.cost_micros, null, 'a model without a price: cost unknown, not 0');
    }
  }

  const totals = (group: GroupOf): UsageSummaryRow[] => totalsBy(records, group);
  const keyIdA = keyA.slice(0, 11);
  const keyIdB = keyB.slice(0, 11);
  const byKey = await admin<{ data: UsageSummaryRow[] }>('/admin/usage/summary?group_by=key');
  t.equal(byKey.status, 200);
  const mine = (rows: UsageSummaryRow[]): UsageSummaryRow[] =>
    rows.filter((r) => r.key_id === keyIdA || r.key_id === keyIdB);
  const sortByKey = (rows: UsageSummaryRow[]): UsageSummaryRow[] =>
    [...rows].sort((a, b) => byCodeUnits(String(a.key_id), String(b.key_id)));
  t.strictSame(
    mine(byKey.body.data),
    sortByKey(totals((r) => ({ key_id: r.key_id }))),
    'by key: the records’ sums, in key order',
  );
  t.match(
    byKey.body.data.find((r) => r.key_id === keyIdB),
    { requests: 3, cost_unknown_requests: 2 },
    'key B: three calls, two of them unpriced',
  );

  const byModel = await admin<{ data: UsageSummaryRow[] }>('/admin/usage/summary?group_by=model');
  t.strictSame(
    byModel.body.data,
    totals((r) => ({ model: r.model })).sort((a, b) => byCodeUnits(a.model!, b.model!)),
    'by model: the records’ sums, in model order',
  );
  t.match(
    byModel.body.data.find((r) => r.model === UNPRICED),
    { requests: 3, cost_micros: 0, cost_unknown_requests: 3 },
  );

  const now = Date.now();
  const hour = now - (now % 3_600_000);
  const from = new Date(hour - 3_600_000).toISOString();
  const to = new Date(hour + 2 * 3_600_000).toISOString();
  const ranged = await admin<{ data: UsageSummaryRow[] }>(
    `/admin/usage/summary?group_by=key,model,hour&from=${from}&to=${to}`,
  );
  t.equal(ranged.status, 200);
  t.equal(
    mine(ranged.body.data).reduce((n, r) => n + r.requests, 0),
    calls.length,
    'by key, model and hour over the last hours: every call',
  );
  t.ok(
    ranged.body.data.every((r) => typeof r.period === 'string' && r.period.endsWith(':00:00.000Z')),
    'periods are the starts of hours',
  );
  const later = await admin<{ data: UsageSummaryRow[] }>(`/admin/usage/summary?group_by=day&from=${to}`);
  t.strictSame(later.body.data, [], 'nothing after now');

  const filtered = await admin<{ data: UsageSummaryRow[] }>(
    `/admin/usage/summary?group_by=key,model&key_id=${keyIdB},sk-unknown&model=${UNPRICED}`,
  );
  t.strictSame(
    filtered.body.data,
    totalsBy(
      records.filter((r) => r.key_id === keyIdB && r.model === UNPRICED),
      (r) => ({ key_id: r.key_id, model: r.model }),
    ),
    "filtered on the server: key B's calls to the unpriced model only",
  );
  const keyPage = await admin<{ data: { id: string; last_used_at: string; spent_micros: number }[] }>(
    `/admin/keys?q=${keyIdA}`,
  );
  const latestA = records
    .filter((r) => r.key_id === keyIdA)
    .map((r) => r.created_at)
    .sort()
    .at(-1);
  t.match(
    keyPage.body.data.find((k) => k.id === keyIdA),
    {
      last_used_at: latestA,
      spent_micros: records.filter((r) => r.key_id === keyIdA).reduce((n, r) => n + (r.cost_micros ?? 0), 0),
      spent_unknown_requests: 1,
    },
    'the key listing shows when the key was last used and what it spent',
  );
  const unused = await gw.createKey({ description: 'never used' });
  const one = await admin<{ last_used_at: null; spent_micros: number }>(`/admin/keys/${unused.slice(0, 11)}`);
  t.match(one.body, { last_used_at: null, spent_micros: 0 }, 'a key never used');

  for (const [query, words] of [
    ['', /group_by/],
    ['?group_by=', /group_by/],
    ['?group_by=week', /week.*key, team, model, endpoint, hour or day/],
    ['?group_by=endpoints', /endpoints/],
    ['?group_by=endpoint,endpoint', /twice/],
    ['?group_by=endpoint&endpoint=', /endpoint/],
    ['?group_by=endpoint&endpoint=responses,,embeddings', /endpoint/],
    [`?group_by=endpoint&endpoint=${'x'.repeat(201)}`, /endpoint/],
    [`?group_by=endpoint&endpoint=${Array.from({ length: 101 }, (_, i) => `e${i}`).join(',')}`, /endpoint/],
    ['?group_by=endpoint&endpoint=responses&endpoint=embeddings', /once/],
    ['?group_by=endpoint&endpoint_id=responses', /endpoint_id.*model, endpoint/],
    ['?group_by=key,key', /twice/],
    ['?group_by=hour,day', /at most one/],
    ['?group_by=key&from=yesterday', /from/],
    ['?group_by=key&from=2026-01-01T00:30:00Z', /on the hour/],
    ['?group_by=key&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', /before/],
    ['?group_by=key&since=2026-01-01T00:00:00Z', /since/],
    ['?group_by=key&model=', /model/],
    ['?group_by=key&key_id=a,,b', /key_id/],
    ['?group_by=key&model=a&model=b', /once/],
  ] as const) {
    const res = await admin<ErrorBody>(`/admin/usage/summary${query}`);
    t.equal(res.status, 400, `${query || 'no query'}: 400`);
    t.match(
      res.body,
      { error: { code: 'invalid_request', type: String, message: words } },
      'the contract’s error body',
    );
  }
});

t.test('usage summary by endpoint counts real calls on each endpoint', async (t) => {
  const gw = await startTestGateway(t);
  const admin = async (path: string): Promise<UsageSummaryRow[]> => {
    const res = await fetch(`${gw.gateway.adminUrl}${path}`, {
      headers: { authorization: `Bearer ${gw.gateway.adminToken}` },
    });
    t.equal(res.status, 200, path);
    return ((await res.json()) as { data: UsageSummaryRow[] }).data;
  };
  const calls: [string, Record<string, unknown>][] = [
    ['/v1/chat/completions', { model: PRICED, messages: [{ role: 'user', content: 'hi' }] }],
    ['/v1/responses', { model: PRICED, input: 'hi' }],
    ['/v1/responses', { model: UNPRICED, input: 'hi again' }],
    ['/v1/embeddings', { model: EMBEDDING, input: 'one' }],
    ['/v1/embeddings', { model: EMBEDDING, input: ['two', 'three'] }],
    ['/v1/embeddings', { model: EMBEDDING, input: 'four' }],
  ];
  for (const [path, body] of calls) {
    t.equal((await postJson(`${gw.url}${path}`, body, gw.key)).status, 200, `${path} answered`);
  }
  await eventually(async () => (await gw.gateway.usage.list()).length === calls.length);
  const records = await gw.gateway.usage.list();

  const byEndpoint = await admin('/admin/usage/summary?group_by=endpoint');
  t.strictSame(
    byEndpoint,
    totalsBy(records, (r) => ({ endpoint: r.endpoint })).sort((a, b) =>
      byCodeUnits(a.endpoint!, b.endpoint!),
    ),
    'by endpoint: the records’ sums, in endpoint order',
  );
  t.strictSame(
    byEndpoint.map((r) => [r.endpoint, r.requests]),
    [
      ['chat-completions', 1],
      ['embeddings', 3],
      ['responses', 2],
    ],
    'one chat completion, three embeddings, two responses',
  );
  const now = Date.now();
  const hour = now - (now % 3_600_000);
  const range = `from=${new Date(hour - 3_600_000).toISOString()}&to=${new Date(hour + 2 * 3_600_000).toISOString()}`;
  const perHour = await admin(
    `/admin/usage/summary?group_by=model,endpoint,hour&${range}&endpoint=responses`,
  );
  t.strictSame(
    perHour.map((r) => [r.model, r.endpoint, r.requests]),
    [
      [PRICED, 'responses', 1],
      [UNPRICED, 'responses', 1],
    ].sort((a, b) => byCodeUnits(String(a[0]), String(b[0]))),
    'per hour by model and endpoint, filtered to responses',
  );
  const keyed = await admin(
    `/admin/usage/summary?group_by=key&endpoint=embeddings,chat-completions&key_id=${gw.key.slice(0, 11)}`,
  );
  t.strictSame(
    keyed.map((r) => [r.key_id, r.endpoint, r.requests]),
    [[gw.key.slice(0, 11), undefined, 4]],
    'filtered by two endpoints and grouped by key: their calls together, rows without an endpoint',
  );
});
