/**
 * What every UsageStore promises metering and billing, run against each implementation. `makeStore(t)`
 * gives fresh, empty storage and opens stores over it; opening again is a reopen.
 */
import type { Test } from 'tap';
import type {
  SummaryDimension,
  UsageRecord,
  UsageStore,
  UsageSummaryRow,
} from '../../../core/stores/usage-store';
import type { Opener } from '../../helpers/stores';
import { totalsBy } from '../../helpers/usage-totals';

export type MakeUsageStore = (t: Test) => Promise<Opener<UsageStore>>;

let seq = 0;

export function newRecord(over: Partial<UsageRecord> = {}): UsageRecord {
  return {
    id: `req-${process.pid}-${++seq}`,
    key_id: 'sk-keyAAAAA',
    model: 'model-1',
    upstream: 'main',
    endpoint: 'chat-completions',
    status: 200,
    stream: false,
    prompt_tokens: 10,
    completion_tokens: 20,
    total_tokens: 30,
    estimated: false,
    outcome: 'ok',
    latency_ms: 12,
    created_at: '2026-01-01T00:00:00.000Z',
    cost_micros: 42,
    ...over,
  };
}

/** A video bill, as the poller writes it with recordOnce (the id is the task id). */
const bill = (id: string): UsageRecord =>
  newRecord({
    id,
    endpoint: '/v1/videos',
    video_seconds: 5,
    resolution: '720p',
    cost_micros: 500_000,
    total_tokens: 0,
  });

export function usageStoreContract(t: Test, makeStore: MakeUsageStore): void {
  t.test('recordOnce writes a record once per id', async (t) => {
    const store = await (await makeStore(t))();
    const entry = bill('vt-once-1');
    t.equal(await store.recordOnce(entry), true, 'the first call writes');
    t.equal(await store.recordOnce({ ...entry, cost_micros: 99 }), false, 'the second finds it written');
    t.strictSame(
      await store.list({ id: entry.id }),
      [{ ...entry, once: true }],
      'one record, the first, marked once',
    );
  });

  t.test('concurrent recordOnce of one id: exactly one writes', async (t) => {
    const store = await (await makeStore(t))();
    const entry = bill('vt-race');
    const results = await Promise.all(Array.from({ length: 10 }, () => store.recordOnce(entry)));
    t.equal(results.filter(Boolean).length, 1, 'one true, the rest false');
    t.equal((await store.list({ id: entry.id })).length, 1, 'one record');
  });

  t.test('a plain record with the same id does not pre-empt a bill', async (t) => {
    const store = await (await makeStore(t))();
    // A client may send any request id, including a future task id: it must not block that task's bill.
    const plain = newRecord({ id: 'vt-chosen-by-client' });
    store.record(plain);
    await store.flush();
    t.equal(await store.recordOnce(bill(plain.id)), true, 'the bill is written');
    t.equal(await store.recordOnce(bill(plain.id)), false, 'once');
    store.record(newRecord({ id: plain.id }));
    const records = await store.list({ id: plain.id });
    t.equal(records.length, 3, 'plain records are never refused');
    t.equal(records.filter((r) => r.once === true).length, 1, 'one of them is the bill');
  });

  t.test('recordOnce and recorded records survive a reopen', async (t) => {
    const open = await makeStore(t);
    const first = await open();
    t.equal(await first.recordOnce(bill('vt-durable')), true);
    const plain = newRecord();
    first.record(plain); // not flushed: close must write it
    await first.close();

    const second = await open();
    t.equal(await second.recordOnce(bill('vt-durable')), false, 'a bill is remembered across a restart');
    t.strictSame(await second.list({ id: plain.id }), [plain], 'close wrote what was queued');
    t.equal(await second.recordOnce(bill('vt-durable-2')), true, 'another id is still free');
  });

  t.test('list: filters, insertion order, the latest `limit`', async (t) => {
    const store = await (await makeStore(t))();
    const r1 = newRecord({ key_id: 'sk-a' });
    const r2 = newRecord({ key_id: 'sk-b', cache_read_tokens: 4 });
    const r3 = newRecord({ key_id: 'sk-a', stream: true, outcome: 'client_closed', estimated: true });
    const r4 = newRecord({ key_id: null, status: 401 });
    const r5 = newRecord({ key_id: 'sk-a' });
    for (const r of [r1, r2, r3, r4, r5]) store.record(r);
    t.strictSame(
      await store.list(),
      [r1, r2, r3, r4, r5],
      'list writes what is queued first; insertion order',
    );
    t.strictSame(await store.list({ key_id: 'sk-a' }), [r1, r3, r5], 'by key');
    t.strictSame(await store.list({ key_id: 'sk-a', limit: 2 }), [r3, r5], 'the latest two, oldest first');
    t.strictSame(await store.list({ limit: 1 }), [r5], 'the very latest');
    t.strictSame(await store.list({ id: r2.id }), [r2], 'by id');
    t.strictSame(await store.list({ id: r2.id, key_id: 'sk-a' }), [], 'both filters apply');
    t.strictSame(await store.list({ id: 'req-unknown' }), [], 'nothing for an unknown id');
  });

  t.test('list by endpoint and model: tool calls with their tool and server', async (t) => {
    const store = await (await makeStore(t))();
    const tool = (name: string, outcome: string) =>
      newRecord({
        endpoint: 'mcp',
        model: `demo__${name}`,
        upstream: 'demo',
        tool: name,
        server: 'demo',
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: 0,
        cost_micros: null,
        outcome,
      });
    const add = tool('add', 'ok');
    const chat = newRecord();
    const failed = tool('add', 'upstream_error');
    const secret = tool('secret', 'vendor_error');
    for (const r of [add, chat, failed, secret]) store.record(r);
    t.strictSame(await store.list({ endpoint: 'mcp' }), [add, failed, secret], 'by endpoint, as recorded');
    t.strictSame(await store.list({ endpoint: 'mcp', model: 'demo__add' }), [add, failed], 'and model');
    t.strictSame(await store.list({ endpoint: 'mcp', limit: 1 }), [secret], 'the latest one');
    t.strictSame(await store.list({ model: 'model-1' }), [chat], 'by model alone');
    t.strictSame(await store.list({ endpoint: 'mcp', key_id: 'sk-other' }), [], 'with the key filter');
  });

  t.test(
    'bounded at the door: at maxQueued waiting records it stops accepting, and drops nothing',
    async (t) => {
      const store = await (await makeStore(t))();
      const { max } = store.stats();
      t.equal(store.accepting(), true, 'an empty store accepts');
      const waiting = Array.from({ length: max }, () => newRecord({ key_id: 'sk-bound' }));
      for (const r of waiting) store.record(r); // record only queues: none is written yet
      t.equal(store.accepting(), false, `${max} waiting: no new billable work`);
      const underWay = [newRecord({ key_id: 'sk-bound' }), newRecord({ key_id: 'sk-bound' })];
      for (const r of underWay) store.record(r); // calls that were already under way are still recorded
      t.match(store.stats(), { queued: max + 2, max, failing: false });
      await store.flush();
      t.equal(store.accepting(), true, 'accepting again once written');
      t.match(store.stats(), { queued: 0, failedWrites: 0 });
      t.strictSame(await store.list({ key_id: 'sk-bound' }), [...waiting, ...underWay], 'every record, once');
    },
  );

  t.test('record never blocks; flush resolves once written', async (t) => {
    const open = await makeStore(t);
    const store = await open();
    const many = Array.from({ length: 50 }, (_, i) => newRecord({ latency_ms: i }));
    // The work done, not the time passed: on a loaded machine the process may wait for a core meanwhile.
    const started = process.cpuUsage();
    for (const r of many) store.record(r);
    const { user, system } = process.cpuUsage(started);
    t.ok((user + system) / 1000 < 50, 'record only queues');
    t.match(store.stats(), { queued: many.length }, 'none is written before record returns');
    await store.flush();
    const reader = await open(); // another instance over the same storage sees it
    t.strictSame(await reader.list({ key_id: 'sk-keyAAAAA' }), many);
  });

  t.test('by team: listed, summed and grouped at every level, across a reopen', async (t) => {
    const open = await makeStore(t);
    const store = await open();
    const at = (iso: string, key: string, team: string | undefined, over: Partial<UsageRecord> = {}) =>
      newRecord({ created_at: iso, key_id: key, ...(team ? { team_id: team } : {}), ...over });
    // Key sk-a is in team-red, then moved to team-blue; sk-b stays in red; sk-c has no team.
    const records = [
      at('2026-05-01T10:05:00.000Z', 'sk-a', 'team-red'),
      at('2026-05-01T10:40:00.000Z', 'sk-b', 'team-red', { cost_micros: null }),
      at('2026-05-01T11:10:00.000Z', 'sk-c', undefined),
      at('2026-05-02T09:00:00.000Z', 'sk-a', 'team-blue'),
      at('2026-05-02T09:30:00.000Z', 'sk-b', 'team-red', { model: 'model-2' }),
    ];
    for (const r of records) store.record(r);
    const [red1, red2, , , red3] = records;
    t.strictSame(await store.list({ team_id: 'team-red' }), [red1, red2, red3], 'list by team');
    t.strictSame(await store.list({ team_id: 'team-red', key_id: 'sk-a' }), [red1], 'with the key filter');
    const row = (team: string | null, requests: number, unknown = 0) => ({
      team_id: team,
      requests,
      input_tokens: requests * 10,
      output_tokens: requests * 20,
      cost_micros: (requests - unknown) * 42,
      cost_unknown_requests: unknown,
      saved_micros: 0,
      batch_requests: 0,
      batch_cost_micros: 0,
    });
    const check = async (s: UsageStore, when: string): Promise<void> => {
      const all = [row(null, 1), row('team-blue', 1), row('team-red', 3, 1)];
      t.strictSame(await s.summary({ group_by: ['team'] }), all, `${when}: all time, no team first`);
      t.strictSame(
        await s.summary({ group_by: ['team'], from: Date.parse('2026-05-01T00:00:00Z') }),
        all,
        `${when}: by day`,
      );
      t.strictSame(
        await s.summary({ group_by: ['team'], from: Date.parse('2026-05-01T10:00:00Z') }),
        all,
        `${when}: by hour`,
      );
      t.strictSame(
        await s.summary({
          group_by: ['team'],
          team_ids: ['team-red'],
          from: Date.parse('2026-05-02T00:00:00Z'),
        }),
        [row('team-red', 1)],
        `${when}: one team from a day on`,
      );
      t.strictSame(
        (await s.summary({ group_by: ['team', 'key'], team_ids: ['team-red', 'team-blue'] })).map((r) => [
          r.key_id,
          r.team_id,
          r.requests,
        ]),
        [
          ['sk-a', 'team-blue', 1],
          ['sk-a', 'team-red', 1],
          ['sk-b', 'team-red', 2],
        ],
        `${when}: a moved key's calls stay with the team they were made under`,
      );
      t.strictSame(
        (await s.summary({ group_by: ['model'], key_ids: ['sk-b'], team_ids: ['team-red'] })).map((r) => [
          r.model,
          r.requests,
        ]),
        [
          ['model-1', 1],
          ['model-2', 1],
        ],
        `${when}: key and team filters together`,
      );
      t.strictSame(
        (await s.summary({ group_by: ['key'] })).map((r) => 'team_id' in r),
        [false, false, false],
        `${when}: no team_id unless grouped by team`,
      );
    };
    await check(store, 'as written');
    await store.close();
    await check(await open(), 'after a reopen');
  });

  t.test('summary by endpoint: exact per endpoint at every level, filtered, across a reopen', async (t) => {
    const open = await makeStore(t);
    const store = await open();
    const at = (iso: string, endpoint: string, over: Partial<UsageRecord> = {}): UsageRecord =>
      newRecord({
        id: `ep-${++seq}`,
        created_at: iso,
        endpoint,
        prompt_tokens: 1,
        completion_tokens: 2,
        ...over,
      });
    // One key and one model on four endpoints, over two hours of one day and an hour of the next: only
    // the endpoint tells the records apart, so any bucket that lost it would merge them.
    const records = [
      at('2026-04-01T10:05:00.000Z', 'chat-completions'),
      at('2026-04-01T10:10:00.000Z', 'responses'),
      at('2026-04-01T10:20:00.000Z', 'responses'),
      at('2026-04-01T11:00:00.000Z', 'embeddings', { completion_tokens: 0, cost_micros: null }),
      at('2026-04-01T11:30:00.000Z', 'messages'),
      at('2026-04-02T00:15:00.000Z', 'responses'),
      at('2026-04-02T00:45:00.000Z', 'embeddings', { completion_tokens: 0 }),
      at('2026-04-02T00:50:00.000Z', 'embeddings', { completion_tokens: 0, key_id: 'sk-other' }),
    ];
    for (const r of records) store.record(r);
    const totals = (endpoint: string, requests: number, output: number, unknown = 0) => ({
      endpoint,
      requests,
      input_tokens: requests,
      output_tokens: output,
      cost_micros: (requests - unknown) * 42,
      cost_unknown_requests: unknown,
      saved_micros: 0,
      batch_requests: 0,
      batch_cost_micros: 0,
    });
    const check = async (s: UsageStore, when: string): Promise<void> => {
      t.strictSame(
        await s.summary({ group_by: ['endpoint'] }),
        [
          totals('chat-completions', 1, 2),
          totals('embeddings', 3, 0, 1),
          totals('messages', 1, 2),
          totals('responses', 3, 6),
        ],
        `${when}: all time, by endpoint`,
      );
      t.strictSame(
        (await s.summary({ group_by: ['endpoint', 'hour'] })).map((r) => [r.period, r.endpoint, r.requests]),
        [
          ['2026-04-01T10:00:00.000Z', 'chat-completions', 1],
          ['2026-04-01T10:00:00.000Z', 'responses', 2],
          ['2026-04-01T11:00:00.000Z', 'embeddings', 1],
          ['2026-04-01T11:00:00.000Z', 'messages', 1],
          ['2026-04-02T00:00:00.000Z', 'embeddings', 2],
          ['2026-04-02T00:00:00.000Z', 'responses', 1],
        ],
        `${when}: per hour`,
      );
      t.strictSame(
        (await s.summary({ group_by: ['day', 'endpoint'] })).map((r) => [r.period, r.endpoint, r.requests]),
        [
          ['2026-04-01T00:00:00.000Z', 'chat-completions', 1],
          ['2026-04-01T00:00:00.000Z', 'embeddings', 1],
          ['2026-04-01T00:00:00.000Z', 'messages', 1],
          ['2026-04-01T00:00:00.000Z', 'responses', 2],
          ['2026-04-02T00:00:00.000Z', 'embeddings', 2],
          ['2026-04-02T00:00:00.000Z', 'responses', 1],
        ],
        `${when}: per day`,
      );
      t.strictSame(
        (await s.summary({ group_by: ['key', 'model', 'endpoint'], endpoints: ['embeddings'] })).map((r) => [
          r.key_id,
          r.model,
          r.endpoint,
          r.requests,
        ]),
        [
          ['sk-keyAAAAA', 'model-1', 'embeddings', 2],
          ['sk-other', 'model-1', 'embeddings', 1],
        ],
        `${when}: by key, model and endpoint, embeddings only`,
      );
      const day2 = Date.parse('2026-04-02T00:00:00.000Z');
      t.strictSame(
        (
          await s.summary({
            group_by: ['endpoint'],
            endpoints: ['responses', 'embeddings'],
            key_ids: ['sk-keyAAAAA'],
            from: day2,
            to: day2 + 86_400_000,
          })
        ).map((r) => [r.endpoint, r.requests]),
        [
          ['embeddings', 1],
          ['responses', 1],
        ],
        `${when}: a day's range, one key, two endpoints`,
      );
      t.strictSame(
        (await s.summary({ group_by: ['model'], endpoints: ['responses'], from: day2 - 14 * 3_600_000 })).map(
          (r) => [r.model, r.endpoint, r.requests],
        ),
        [['model-1', undefined, 3]],
        `${when}: filtered by endpoint, not grouped by it: rows carry no endpoint`,
      );
    };
    await check(store, 'as written');
    await store.close();
    await check(await open(), 'after a reopen');
  });

  t.test("summary: a cache's hits add what they saved, at every level, across a reopen", async (t) => {
    const open = await makeStore(t);
    const store = await open();
    const at = (iso: string, over: Partial<UsageRecord> = {}): UsageRecord =>
      newRecord({ created_at: iso, ...over });
    const hit = (iso: string, saved: number | null, over: Partial<UsageRecord> = {}): UsageRecord =>
      at(iso, { cost_micros: 0, cache: 'hit', saved_micros: saved, ...over });
    // A miss on either side of the hits, which carries no saving (as every record before hits existed).
    const records = [
      at('2026-06-01T10:05:00.000Z'),
      hit('2026-06-01T10:10:00.000Z', 1_500),
      hit('2026-06-01T11:20:00.000Z', 2_500, { model: 'model-2' }),
      hit('2026-06-02T09:00:00.000Z', null), // an unpriced model's hit: spent nothing, saved unknown
      at('2026-06-02T09:30:00.000Z', { cost_micros: null }),
    ];
    for (const r of records) store.record(r);
    const row = (model: string, requests: number, cost: number, unknown: number, saved: number) => ({
      model,
      requests,
      input_tokens: requests * 10,
      output_tokens: requests * 20,
      cost_micros: cost,
      cost_unknown_requests: unknown,
      saved_micros: saved,
      batch_requests: 0,
      batch_cost_micros: 0,
    });
    const check = async (s: UsageStore, when: string): Promise<void> => {
      t.strictSame(
        await s.list({ id: records[1]!.id }),
        [records[1]],
        `${when}: a hit is listed with its mark and saving`,
      );
      t.strictSame(
        await s.list({ id: records[3]!.id }),
        [records[3]],
        `${when}: an unknown saving stays null`,
      );
      const all = [row('model-1', 4, 42, 1, 1_500), row('model-2', 1, 0, 0, 2_500)];
      t.strictSame(await s.summary({ group_by: ['model'] }), all, `${when}: all time`);
      t.strictSame(
        await s.summary({ group_by: ['model'], from: Date.parse('2026-06-01T00:00:00Z') }),
        all,
        `${when}: from day totals`,
      );
      t.strictSame(
        (await s.summary({ group_by: ['key', 'hour'] })).map((r) => [r.period, r.saved_micros]),
        [
          ['2026-06-01T10:00:00.000Z', 1_500],
          ['2026-06-01T11:00:00.000Z', 2_500],
          ['2026-06-02T09:00:00.000Z', 0],
        ],
        `${when}: per hour, by key`,
      );
    };
    await check(store, 'as written');
    await store.close();
    await check(await open(), 'after a reopen');
  });

  t.test(
    'summary: every grouping totals what the raw records sum to, bills once, across a reopen',
    async (t) => {
      const open = await makeStore(t);
      const store = await open();
      const random = seeded(10);
      const keys = ['sk-sumA', 'sk-sumB', 'sk-sumC', 'sk-sumD', null];
      const models = ['model-x', 'model-y', 'model-z'];
      const endpoints = ['chat-completions', 'responses', 'embeddings', 'messages'];
      const start = Date.parse('2026-03-01T00:00:00.000Z');
      const generated = (i: number): UsageRecord =>
        newRecord({
          id: `sum-${i}`,
          key_id: keys[Math.floor(random() * keys.length)]!,
          model: models[Math.floor(random() * models.length)]!,
          endpoint: endpoints[Math.floor(random() * endpoints.length)]!,
          created_at: new Date(start + Math.floor(random() * 3.5 * 86_400_000)).toISOString(),
          prompt_tokens: Math.floor(random() * 5000),
          completion_tokens: Math.floor(random() * 2000),
          cost_micros: random() < 0.15 ? null : Math.floor(random() * 100_000),
          // One in ten a cache's hit: free, saving its price (unknown for one in six of them).
          ...(random() < 0.1
            ? {
                cost_micros: 0,
                cache: 'hit',
                saved_micros: random() < 0.15 ? null : Math.floor(random() * 100_000),
              }
            : {}),
          // One in eight a line of a batch, whose spend summaries show apart.
          ...(random() < 0.125 ? { batch_id: `batch_${i % 7}`, custom_id: `row-${i}` } : {}),
        });
      const raw: UsageRecord[] = [];
      for (let i = 0; i < 10_000; i++) {
        const r = generated(i);
        raw.push(r);
        store.record(r);
      }
      // Video bills: each written twice with recordOnce, counted once.
      for (let i = 0; i < 20; i++) {
        const b = { ...generated(10_000 + i), id: `sum-bill-${i}`, endpoint: 'video' };
        t.equal(await store.recordOnce(b), true);
        t.equal(await store.recordOnce({ ...b, cost_micros: 1 }), false);
        raw.push(b);
      }
      const groupings: SummaryDimension[][] = [
        ['key'],
        ['model'],
        ['hour'],
        ['day'],
        ['key', 'model'],
        ['key', 'hour'],
        ['model', 'day'],
        ['day', 'model', 'key'],
        ['key', 'model', 'hour'],
        ['endpoint'],
        ['model', 'endpoint'],
        ['endpoint', 'hour'],
        ['key', 'endpoint', 'day'],
        ['key', 'model', 'endpoint', 'hour'],
      ];
      const from = Date.parse('2026-03-01T05:00:00.000Z');
      const to = Date.parse('2026-03-02T17:00:00.000Z');
      const check = async (s: UsageStore, when: string): Promise<void> => {
        for (const group_by of groupings) {
          t.strictSame(
            await s.summary({ group_by }),
            expected(raw, group_by),
            `${when}: by ${group_by.join(',')}`,
          );
        }
        t.strictSame(
          await s.summary({ group_by: ['key', 'hour'], from, to }),
          expected(raw, ['key', 'hour'], from, to),
          `${when}: over a range of hours`,
        );
        // Ranges on midnights are answered from day totals, others from hour totals: both must agree.
        const midnight = Date.parse('2026-03-02T00:00:00.000Z');
        for (const [group_by, lo, hi] of [
          [['model'], midnight, midnight + 86_400_000],
          [['key'], from, midnight + 86_400_000],
          [['model', 'day'], from, to],
          [['key', 'model'], undefined, midnight],
          [['endpoint'], midnight, midnight + 86_400_000],
          [['endpoint', 'day'], from, to],
        ] as const) {
          t.strictSame(
            await s.summary({ group_by, from: lo, to: hi }),
            expected(raw, group_by, lo, hi),
            `${when}: by ${group_by.join(',')} from ${String(lo)} to ${String(hi)}`,
          );
        }
        const chosen = (r: UsageRecord): boolean =>
          (r.key_id === 'sk-sumA' || r.key_id === 'sk-sumC') && r.model !== 'model-y';
        t.strictSame(
          await s.summary({
            group_by: ['key', 'model', 'day'],
            key_ids: ['sk-sumA', 'sk-sumC', 'sk-never'],
            models: ['model-x', 'model-z'],
          }),
          expected(raw.filter(chosen), ['key', 'model', 'day']),
          `${when}: filtered by keys and models`,
        );
        const onEndpoints = (r: UsageRecord): boolean => r.endpoint === 'responses' || r.endpoint === 'video';
        t.strictSame(
          await s.summary({
            group_by: ['model', 'hour'],
            endpoints: ['responses', 'video', 'never'],
            from,
            to,
          }),
          expected(raw.filter(onEndpoints), ['model', 'hour'], from, to),
          `${when}: filtered by endpoints over a range of hours`,
        );
        t.strictSame(
          await s.summary({ group_by: ['endpoint'], key_ids: ['sk-sumB'], endpoints: ['embeddings'] }),
          expected(
            raw.filter((r) => r.key_id === 'sk-sumB' && r.endpoint === 'embeddings'),
            ['endpoint'],
          ),
          `${when}: filtered by key and endpoint`,
        );
        const latest = (key: string): string | undefined =>
          raw
            .filter((r) => r.key_id === key)
            .map((r) => r.created_at)
            .sort()
            .at(-1);
        t.strictSame(
          Object.fromEntries(await s.lastUsed(['sk-sumB', 'sk-never', 'sk-sumD'])),
          { 'sk-sumB': latest('sk-sumB'), 'sk-sumD': latest('sk-sumD') },
          `${when}: each key's latest record; a key never used is absent`,
        );
        const all = await s.summary({ group_by: ['model'] });
        t.equal(
          all.reduce((n, r) => n + r.requests, 0),
          10_020,
          `${when}: 10,000 records and 20 bills, each once`,
        );
      };
      await check(store, 'as written');
      await store.close();
      await check(await open(), 'after a reopen');
    },
  );
}

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** The summary computed straight from the records, without the stores' roll-ups. */
function expected(
  records: readonly UsageRecord[],
  groupBy: readonly SummaryDimension[],
  from?: number,
  to?: number,
): UsageSummaryRow[] {
  const by = new Set(groupBy);
  const inRange = records.filter((r) => {
    const at = Date.parse(r.created_at);
    return (from === undefined || at >= from) && (to === undefined || at < to);
  });
  const rows = totalsBy(inRange, (r) => {
    const period = by.has('hour')
      ? `${r.created_at.slice(0, 13)}:00:00.000Z`
      : by.has('day')
        ? `${r.created_at.slice(0, 10)}T00:00:00.000Z`
        : undefined;
    return {
      ...(by.has('key') ? { key_id: r.key_id } : {}),
      ...(by.has('model') ? { model: r.model } : {}),
      ...(by.has('endpoint') ? { endpoint: r.endpoint } : {}),
      ...(period !== undefined ? { period } : {}),
    };
  });
  const sortKey = (r: UsageSummaryRow): string =>
    `${r.period ?? ''}|${r.key_id === undefined || r.key_id === null ? '' : '~' + r.key_id}|${r.model ?? ''}|${r.endpoint ?? ''}`;
  return rows.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
}
