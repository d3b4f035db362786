/**
 * GET /admin/usage/summary over real HTTP: real chat calls with two keys, then the totals by key and by
 * model match the records the calls left; bad parameters get the contract's 400.
 */
import t from 'tap';
import type { UsageRecord, UsageSummaryRow } from '../../../core/stores/usage-store';
import { totalsBy, type GroupOf } from '../../helpers/usage-totals';
import { startTestGateway } from '../../helpers/gateway';
import { eventually, postJson, type ErrorBody } from '../../helpers/http';

const PRICED = 'modela-5.5';
const UNPRICED = 'modelb-3.5-flash';

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
    ['?group_by=week', /week/],
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
