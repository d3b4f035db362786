/**
 * The bench's goals computed from a run's rows: each PASS or FAIL at its value, at and around its bound,
 * and "not checked", with why, when the run left out the case, the target or the connections it needs.
 */
import t from 'tap';
import type { CaseName } from '../../bench/cases';
import { goals, type Goal } from '../../bench/goals';
import { goalLines } from '../../bench/report';
import type { Row } from '../../bench/summary';
import type { TargetName } from '../../bench/targets';

type Figures = Partial<Pick<Row, 'rps' | 'p99Ms' | 'cpuMicrosPerRequest' | 'peakRssKb'>>;

const row = (caseName: CaseName, target: TargetName, figures: Figures = {}): Row => ({
  caseName,
  target,
  rounds: 1,
  rps: 1000,
  rpsMin: 1000,
  rpsMax: 1000,
  p50Ms: 5,
  p99Ms: 10,
  non2xx: 0,
  errors: 0,
  cpuMicrosPerRequest: 100,
  peakRssKb: 50_000,
  ...figures,
});

const ALL_CASES: readonly CaseName[] = ['json', 'json-10', 'stream', 'messages'];
const ALL_TARGETS: readonly TargetName[] = ['bare', 'gateway', 'bound', 'portkey'];

/** A run of `cases` × `targets`, each row at the defaults but for `figures[target]` (and per case). */
function run(
  figures: Partial<Record<TargetName, Figures>>,
  { cases = ALL_CASES, targets = ALL_TARGETS } = {},
): Row[] {
  return cases.flatMap((c) => targets.map((target) => row(c, target, figures[target])));
}

const CPU = (c: string) => `${c} CPU per request gateway/bound`;
const P99 = (c: string) => `${c} p99 gateway/bare at 64 connections`;
const RSS = 'peak RSS gateway/bare, highest over the cases';
const RPS = 'json-10 requests/s gateway/portkey';

/** A goal as expected: its status and its value (to 3 digits), or a pattern of why it was not checked. */
type Expected = readonly [label: string, status: Goal['status'], valueOrWhy: number | RegExp];

const scenarios: readonly {
  readonly what: string;
  readonly rows: readonly Row[];
  readonly connections?: number;
  readonly expected: readonly Expected[];
}[] = [
  {
    what: 'every goal met',
    rows: run({
      gateway: { cpuMicrosPerRequest: 110, p99Ms: 20, peakRssKb: 90_000, rps: 5500 },
      portkey: { rps: 900 },
    }),
    expected: [
      [CPU('json'), 'pass', 0.909],
      [CPU('stream'), 'pass', 0.909],
      [CPU('messages'), 'pass', 0.909],
      [P99('json'), 'pass', 2],
      [P99('stream'), 'pass', 2],
      [RSS, 'pass', 1.8],
      [RPS, 'pass', 6.111],
    ],
  },
  {
    what: 'every goal exactly at its bound passes',
    rows: run({
      gateway: { cpuMicrosPerRequest: 100, p99Ms: 25, peakRssKb: 100_000, rps: 5500 },
      bound: { cpuMicrosPerRequest: 85 },
    }),
    expected: [
      [CPU('json'), 'pass', 0.85],
      [P99('json'), 'pass', 2.5],
      [RSS, 'pass', 2],
      [RPS, 'pass', 5.5],
    ],
  },
  {
    what: 'every goal missed',
    rows: run({
      gateway: { cpuMicrosPerRequest: 150, p99Ms: 30, peakRssKb: 120_000, rps: 5000 },
    }),
    expected: [
      [CPU('json'), 'fail', 0.667],
      [P99('stream'), 'fail', 3],
      [RSS, 'fail', 2.4],
      [RPS, 'fail', 5],
    ],
  },
  {
    what: 'without --bound or --peer, their goals are not checked; the rest are',
    rows: run({}, { targets: ['bare', 'gateway'] }),
    expected: [
      [CPU('json'), 'not checked', /^the bound was not measured \(needs --bound\)$/],
      [CPU('messages'), 'not checked', /needs --bound/],
      [P99('json'), 'pass', 1],
      [RSS, 'pass', 1],
      [RPS, 'not checked', /^Portkey was not measured \(needs --peer portkey\)$/],
    ],
  },
  {
    what: 'a case left out of the run leaves its goals unchecked',
    rows: run({}, { cases: ['json', 'stream'] }),
    expected: [
      [CPU('json'), 'pass', 1],
      [CPU('messages'), 'not checked', /^the messages case was not run$/],
      [RPS, 'not checked', /^the json-10 case was not run$/],
    ],
  },
  {
    what: 'p99 is judged only at 64 connections; json-10 is at 10 whatever the run',
    rows: run({ gateway: { rps: 6000 } }),
    connections: 32,
    expected: [
      [P99('json'), 'not checked', /^the run used 32 connections, not 64$/],
      [P99('stream'), 'not checked', /32 connections/],
      [RPS, 'pass', 6],
    ],
  },
  {
    what: 'without /proc, no CPU or RSS figure, and those goals are not checked',
    rows: run({
      bare: { cpuMicrosPerRequest: Number.NaN, peakRssKb: undefined },
      gateway: { cpuMicrosPerRequest: Number.NaN, peakRssKb: undefined },
      bound: { cpuMicrosPerRequest: Number.NaN, peakRssKb: undefined },
    }),
    expected: [
      [CPU('stream'), 'not checked', /^no CPU time was read/],
      [RSS, 'not checked', /^no peak RSS was read/],
      [P99('json'), 'pass', 1],
    ],
  },
  {
    what: "bare's p99 of 0 ms gives no ratio to judge",
    rows: run({ bare: { p99Ms: 0 } }),
    expected: [[P99('json'), 'not checked', /^bare's p99 read 0 ms$/]],
  },
  {
    what: "peak RSS is each target's highest over the cases",
    rows: [
      row('json', 'bare', { peakRssKb: 50_000 }),
      row('json', 'gateway', { peakRssKb: 60_000 }),
      row('stream', 'bare', { peakRssKb: 55_000 }),
      row('stream', 'gateway', { peakRssKb: 121_000 }),
    ],
    expected: [[RSS, 'fail', 2.2]],
  },
];

t.test('the goals, scenario by scenario', (t) => {
  for (const { what, rows, connections = 64, expected } of scenarios) {
    const checked = goals(rows, connections);
    t.strictSame(
      checked.map((g) => g.label),
      [CPU('json'), CPU('stream'), CPU('messages'), P99('json'), P99('stream'), RSS, RPS],
      `${what}: every goal, in order`,
    );
    for (const [label, status, valueOrWhy] of expected) {
      const goal = checked.find((g) => g.label === label);
      t.equal(goal?.status, status, `${what}: ${label} is ${status}`);
      if (goal?.status === 'not checked') t.match(goal.why, valueOrWhy, `${what}: ${label}, why`);
      else t.equal(Number(goal?.value.toFixed(3)), valueOrWhy, `${what}: ${label}, value`);
    }
  }
  t.end();
});

t.test('the report prints each goal with its value and target, or why it was not checked', (t) => {
  const lines = goalLines(goals(run({ gateway: { cpuMicrosPerRequest: 150 } }, { cases: ['json'] }), 64));
  t.equal(
    lines.split('\n')[0],
    'FAIL         json CPU per request gateway/bound = 0.666 (target >= 0.85)',
    'rounded towards failing: 0.6667 shows as 0.666',
  );
  t.match(lines, /^PASS {9}json p99 gateway\/bare at 64 connections = 1\.000 \(target <= 2\.5\)$/m);
  t.match(
    lines,
    /^not checked {2}stream CPU per request gateway\/bound \(target >= 0\.85\): the stream case was not run$/m,
  );
  t.end();
});

t.test('a value just on the failing side of its bound never prints as the bound itself', (t) => {
  const line = (value: number, bound: Goal['bound'], status: 'pass' | 'fail'): string =>
    goalLines([{ label: 'x', bound, status, value }]);
  t.equal(line(0.8493, { atLeast: 0.85 }, 'fail'), 'FAIL         x = 0.849 (target >= 0.85)', 'not 0.850');
  t.match(line(0.85, { atLeast: 0.85 }, 'pass'), /= 0\.850 /, 'the bound itself, exactly');
  t.equal(line(2.5004, { atMost: 2.5 }, 'fail'), 'FAIL         x = 2.501 (target <= 2.5)', 'not 2.500');
  t.match(line(2.5, { atMost: 2.5 }, 'pass'), /= 2\.500 /);
  t.match(line(0.29, { atLeast: 0.85 }, 'fail'), /= 0\.290 /, 'no float noise (0.29 * 100 = 28.999…)');
  t.end();
});
