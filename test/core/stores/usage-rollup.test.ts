/**
 * The usage roll-ups place each record in its hour, whatever form its time takes: UTC times in the same
 * hour as the last one, a new hour, an earlier hour again, and a time with an offset. Restored from the
 * state it exports, a roll-up answers as the one it came from.
 */
import t from 'tap';
import { UsageRollup } from '../../../core/stores/usage-rollup';
import type { UsageRecord } from '../../../core/stores/usage-store';

const record = (created_at: string, prompt_tokens: number): UsageRecord => ({
  id: `r-${created_at}`,
  key_id: 'key_1',
  model: 'modela-5.5',
  upstream: 'modela-main',
  endpoint: 'chat-completions',
  status: 200,
  stream: false,
  prompt_tokens,
  completion_tokens: 0,
  total_tokens: prompt_tokens,
  cost_micros: null,
  estimated: false,
  outcome: 'ok',
  latency_ms: 1,
  created_at,
});

void t.test('records are summed in the hour their time falls in', (t) => {
  const rollup = new UsageRollup();
  for (const [at, tokens] of [
    ['2026-11-28T04:00:00.000Z', 1],
    ['2026-11-28T04:59:59.999Z', 2],
    ['2026-11-28T05:00:00.000Z', 4],
    ['2026-11-28T04:30:00.000Z', 8], // an earlier hour again
    ['2026-11-28T06:10:00.000+01:00', 16], // 05:10 UTC
    ['2026-11-28T05:20:00.000Z', 32],
    ['not a time', 64],
  ] as const)
    rollup.add(record(at, tokens));
  const rows = rollup.summary({ group_by: ['hour'] });
  t.strictSame(
    rows.map((r) => [r.period, r.input_tokens, r.requests]).sort(),
    [
      ['2026-11-28T04:00:00.000Z', 11, 3],
      ['2026-11-28T05:00:00.000Z', 52, 3],
    ],
    'a time that is none is left out',
  );
  t.end();
});

void t.test('a roll-up restored from its state answers as the original, and goes on adding', (t) => {
  const original = new UsageRollup();
  const times = ['2026-11-28T04:10:00.000Z', '2026-11-28T05:20:00.000Z', '2026-11-29T01:00:00.000Z'];
  const varied = (at: string, i: number): UsageRecord => ({
    ...record(at, i + 1),
    key_id: i % 4 === 0 ? null : `key_${i % 3}`,
    ...(i % 2 ? { team_id: 'team-a' } : {}),
    model: `model-${i % 2}`,
    cost_micros: i % 3 ? 10 * i : null,
    ...(i % 5 === 0 ? { batch_id: 'batch-1' } : {}),
  });
  for (let i = 0; i < 30; i++) original.add(varied(times[i % times.length]!, i));
  const restored = UsageRollup.restore(original.exportState());
  const more = Array.from({ length: 10 }, (_, i) =>
    varied(i % 2 ? times[0]! : '2026-11-30T00:00:00.000Z', i),
  );
  for (const r of more) {
    original.add(r); // into buckets the state held, and new ones
    restored.add(r);
  }
  const queries = [
    { group_by: ['key', 'team', 'model', 'endpoint', 'hour'] },
    { group_by: ['team', 'day'] },
    { group_by: ['model'] },
    { group_by: ['key'], key_ids: ['key_1', 'key_2'] },
  ] as const;
  for (const query of queries)
    t.strictSame(restored.summary(query), original.summary(query), query.group_by.join());
  const keys = ['key_0', 'key_1', 'key_2'];
  t.strictSame(restored.lastUsed(keys), original.lastUsed(keys), 'lastUsed');
  t.end();
});

void t.test('a state that contradicts itself is refused', (t) => {
  const rollup = new UsageRollup();
  rollup.add(record('2026-11-28T04:10:00.000Z', 1));
  const state = rollup.exportState();
  t.throws(() => UsageRollup.restore({ ...state, strings: [] }), /no string/);
  t.throws(
    () => UsageRollup.restore({ ...state, buckets: { ...state.buckets, identities: Int32Array.of(7) } }),
    /names identity 7/,
  );
  t.throws(
    () => UsageRollup.restore({ ...state, buckets: { ...state.buckets, totals: new Float64Array(3) } }),
    /differ in length/,
  );
  t.end();
});

void t.test('a state copied in slices is that of the moment the copy completes', async (t) => {
  const rollup = new UsageRollup();
  const hour = (i: number) => new Date(Date.UTC(2020, 0, 1) + i * 3_600_000).toISOString();
  const buckets = 70_000; // more than one slice (65,536 buckets)
  for (let i = 0; i < buckets; i++) rollup.add(record(hour(i), 1));
  // Runs between the first slice and the second: adds to a bucket copied, one not yet, and a new one.
  setImmediate(() => {
    rollup.add(record(hour(0), 100));
    rollup.add(record(hour(buckets - 1), 100));
    rollup.add(record(hour(buckets), 100));
  });
  const { sliced, whole } = await rollup.exportStateInSlices((sliced) => ({
    sliced,
    whole: rollup.exportState(), // the same moment, copied at once
  }));
  t.equal(sliced.buckets.starts.length, buckets + 1, 'the bucket made meanwhile is in');
  const bytes = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  t.ok(bytes(sliced.buckets.totals).equals(bytes(whole.buckets.totals)), 'every total as it stood then');
  const total = (state: typeof sliced) =>
    UsageRollup.restore(state).summary({ group_by: ['model'] })[0]?.input_tokens;
  t.equal(total(sliced), buckets + 300, 'the three records added meanwhile counted once');
});
