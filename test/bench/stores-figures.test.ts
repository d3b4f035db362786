/**
 * The arithmetic of `npm run bench:stores`: keys grouped into blocks by when their answers came, the
 * growth from the first block to the last, and the chat calls' p99 goal at, around and beside its bound.
 */
import t from 'tap';
import {
  blockSize,
  growth,
  keyBlocks,
  latencyGoal,
  type KeyBlock,
  type KeyTiming,
  type LatencyGoal,
} from '../../bench/stores-figures';

/** One key per [sent, answered] pair, in ms. */
const timings = (pairs: readonly (readonly [number, number])[]): KeyTiming[] =>
  pairs.map(([startMs, endMs]) => ({ startMs, endMs }));

t.test('block size: 10,000 keys, or a tenth of fewer than 100,000', (t) => {
  const cases: readonly (readonly [keys: number, size: number])[] = [
    [10, 1],
    [25, 3],
    [3_000, 300],
    [20_000, 2_000],
    [100_000, 10_000],
    [250_000, 10_000],
  ];
  for (const [keys, size] of cases) t.equal(blockSize(keys), size, `${keys} keys`);
  t.end();
});

const blockCases: readonly {
  what: string;
  timings: KeyTiming[];
  size: number;
  expected: Pick<KeyBlock, 'upTo' | 'keys' | 'msPerKey' | 'meanPostMs'>[];
}[] = [
  {
    what: 'steady cost: every block alike',
    timings: timings([
      [0, 2],
      [2, 4],
      [4, 6],
      [6, 8],
    ]),
    size: 2,
    expected: [
      { upTo: 2, keys: 2, msPerKey: 2, meanPostMs: 2 },
      { upTo: 4, keys: 2, msPerKey: 2, meanPostMs: 2 },
    ],
  },
  {
    what: 'a block runs from the previous block’s last answer to its own',
    timings: timings([
      [0, 1],
      [0, 2],
      [1, 12],
      [2, 22],
    ]),
    size: 2,
    expected: [
      { upTo: 2, keys: 2, msPerKey: 1, meanPostMs: 1.5 },
      { upTo: 4, keys: 2, msPerKey: 10, meanPostMs: 15.5 },
    ],
  },
  {
    what: 'answers are put in the order they came, not the order they were asked for',
    timings: timings([
      [0, 9],
      [0, 3],
      [0, 6],
    ]),
    size: 1,
    expected: [
      { upTo: 1, keys: 1, msPerKey: 3, meanPostMs: 3 },
      { upTo: 2, keys: 1, msPerKey: 3, meanPostMs: 6 },
      { upTo: 3, keys: 1, msPerKey: 3, meanPostMs: 9 },
    ],
  },
  {
    what: 'the last block may be shorter',
    timings: timings([
      [0, 2],
      [0, 4],
      [4, 10],
    ]),
    size: 2,
    expected: [
      { upTo: 2, keys: 2, msPerKey: 2, meanPostMs: 3 },
      { upTo: 3, keys: 1, msPerKey: 6, meanPostMs: 6 },
    ],
  },
  { what: 'no keys, no blocks', timings: [], size: 5, expected: [] },
];

t.test('key blocks', (t) => {
  for (const c of blockCases) t.same(keyBlocks(c.timings, c.size), c.expected, c.what);
  t.end();
});

t.test('growth: the last block over the first', (t) => {
  const block = (msPerKey: number): KeyBlock => ({ upTo: 1, keys: 1, msPerKey, meanPostMs: msPerKey });
  const cases: readonly (readonly [what: string, blocks: KeyBlock[], expected: number])[] = [
    ['flat', [block(2), block(3), block(2)], 1],
    ['ten times dearer at the end', [block(1), block(5), block(10)], 10],
    ['one block', [block(4)], 1],
    ['cheaper at the end', [block(4), block(2)], 0.5],
  ];
  for (const [what, blocks, expected] of cases) t.equal(growth(blocks), expected, what);
  t.ok(Number.isNaN(growth([])), 'no blocks: NaN');
  t.end();
});

t.test('the p99 goal: at most 3× calm, or calm + 25 ms, whichever is more', (t) => {
  const calls = (p99Ms: number, requests = 300) => ({ p99Ms, requests });
  const cases: readonly {
    what: string;
    calm: ReturnType<typeof calls>;
    during: ReturnType<typeof calls>;
    expected: Pick<LatencyGoal, 'status' | 'limitMs'>;
  }[] = [
    {
      what: 'fast calm: + 25 ms is the bound',
      calm: calls(4),
      during: calls(29),
      expected: { status: 'pass', limitMs: 29 },
    },
    { what: 'just over it', calm: calls(4), during: calls(30), expected: { status: 'fail', limitMs: 29 } },
    {
      what: 'slow calm: 3× is the bound',
      calm: calls(20),
      during: calls(60),
      expected: { status: 'pass', limitMs: 60 },
    },
    { what: 'over 3×', calm: calls(20), during: calls(61), expected: { status: 'fail', limitMs: 60 } },
    {
      what: 'both bounds equal at 12.5 ms',
      calm: calls(12.5),
      during: calls(37.5),
      expected: { status: 'pass', limitMs: 37.5 },
    },
    {
      what: 'faster than calm',
      calm: calls(10),
      during: calls(3),
      expected: { status: 'pass', limitMs: 35 },
    },
    {
      what: 'a calm p99 of 0 ms still allows 25',
      calm: calls(0),
      during: calls(25),
      expected: { status: 'pass', limitMs: 25 },
    },
    {
      what: 'no calls while keys were made: not checked',
      calm: calls(4),
      during: calls(0, 0),
      expected: { status: 'not checked', limitMs: 29 },
    },
    {
      what: 'no calm calls: not checked',
      calm: calls(0, 0),
      during: calls(500),
      expected: { status: 'not checked', limitMs: 25 },
    },
  ];
  for (const c of cases) {
    t.match(
      latencyGoal(c.calm, c.during),
      { ...c.expected, calmP99Ms: c.calm.p99Ms, duringP99Ms: c.during.p99Ms },
      c.what,
    );
  }
  t.end();
});
