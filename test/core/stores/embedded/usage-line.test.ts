/** A usage record's line in usage.jsonl is the JSON `JSON.stringify` gives for it, absent fields left out. */
import t from 'tap';
import { usageLine } from '../../../../core/stores/embedded/usage-line';
import type { UsageRecord } from '../../../../core/stores/usage-store';

const call: UsageRecord = {
  id: 'req-1',
  key_id: 'key_0123456789',
  team_id: undefined,
  model: 'modela-5.5',
  upstream: 'modela-main',
  endpoint: 'chat-completions',
  status: 200,
  stream: true,
  prompt_tokens: 12,
  completion_tokens: 30,
  reasoning_tokens: undefined,
  total_tokens: 42,
  cache_read_tokens: undefined,
  cache_write_tokens: undefined,
  images: undefined,
  image_size: undefined,
  image_quality: undefined,
  cost_micros: null,
  cache: undefined,
  saved_micros: undefined,
  estimated: false,
  outcome: 'ok',
  latency_ms: 7,
  created_at: '2026-11-28T03:00:00.000Z',
};

/** A cache's hit of a model without a price: nothing spent, and what it saved unknown. */
const unpricedHit: UsageRecord = { ...call, id: 'req-3', cost_micros: 0, cache: 'hit', saved_micros: null };

/** In the record's own field order, which both serialisations keep. */
const everyField: Required<UsageRecord> = {
  id: 'req-2',
  key_id: null,
  team_id: 'team_1',
  model: 'videoa-1',
  upstream: 'videoa-main',
  endpoint: 'videos',
  status: 200,
  stream: false,
  prompt_tokens: 12,
  completion_tokens: 30,
  reasoning_tokens: 5,
  total_tokens: 42,
  cache_read_tokens: 4,
  cache_write_tokens: 3,
  images: 2,
  image_size: '1024x1024',
  image_quality: 'hd "best"',
  video_seconds: 8,
  resolution: '1280x720',
  cost_micros: 1_234,
  cache: 'hit',
  saved_micros: 5_678,
  guardrail: [
    { name: 'pii', action: 'mask' },
    { name: 'no "codenames"', action: 'block' },
  ],
  tool: 'add',
  server: 'demo',
  batch_id: 'batch_0f3a',
  custom_id: 'row "7"',
  once: true,
  estimated: true,
  outcome: 'upstream_cut',
  latency_ms: 9,
  created_at: '2026-11-28T03:00:01.000Z',
};

void t.test('the JSON of JSON.stringify, for every field and for absent ones', (t) => {
  t.equal(usageLine(call), JSON.stringify(call), 'a chat call: absent counts left out, a null cost kept');
  t.equal(usageLine(everyField), JSON.stringify(everyField), 'every field, a null key id, escapes');
  t.same(JSON.parse(usageLine(everyField)), everyField, 'read back whole');
  t.equal(
    usageLine(unpricedHit),
    JSON.stringify(unpricedHit),
    'a hit whose saving is unknown keeps its null',
  );
  t.end();
});
