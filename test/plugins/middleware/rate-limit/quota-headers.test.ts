/** OpenAI's duration format (Go's time.Duration at millisecond precision) for x-ratelimit-reset-*. */
import t from 'tap';
import { openAiDuration } from '../../../../plugins/middleware/rate-limit/quota-headers';

const CASES: readonly (readonly [number, string])[] = [
  [0, '0s'],
  [-5, '0s'],
  [0.2, '1ms'],
  [20, '20ms'],
  [999, '999ms'],
  [1_000, '1s'],
  [1_500, '1.5s'],
  [8_640, '8.64s'],
  [60_000, '1m0s'],
  [360_000, '6m0s'],
  [90_500, '1m30.5s'],
  [3_600_000, '1h0m0s'],
  [3_723_004, '1h2m3.004s'],
];

t.test('durations as OpenAI writes them', (t) => {
  for (const [ms, text] of CASES) t.equal(openAiDuration(ms), text, `${ms} ms`);
  t.end();
});
