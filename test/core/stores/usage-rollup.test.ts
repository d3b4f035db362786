/**
 * The usage roll-ups place each record in its hour, whatever form its time takes: UTC times in the same
 * hour as the last one, a new hour, an earlier hour again, and a time with an offset.
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
