/** The benchmark's printed report: a table of figures, the ratios to bare, and the goals. */
import type { Bound, Goal } from './goals';
import type { Ratio, RoundRatio, Row } from './summary';

type Cell = string;

/** Left-aligns the first two columns (case, target), right-aligns the rest, so numbers line up. */
export function table(header: readonly Cell[], body: readonly (readonly Cell[])[]): string {
  const lines = [header, ...body];
  const widths = header.map((_, i) => Math.max(...lines.map((l) => (l[i] ?? '').length)));
  const format = (l: readonly Cell[]): string =>
    l.map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [format(header), rule, ...body.map(format)].join('\n');
}

const fixed = (n: number, digits: number): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const mb = (kb: number | undefined): string => (kb === undefined ? 'n/a' : (kb / 1024).toFixed(1));

/** The figures, one line per (case, target). */
export function figuresTable(rows: readonly Row[]): string {
  return table(
    [
      'case',
      'target',
      'req/s',
      'req/s min-max',
      'CPU µs/req',
      'p50 ms',
      'p99 ms',
      'non-2xx',
      'errors',
      'peak RSS MB',
    ],
    rows.map((r) => [
      r.caseName,
      r.target,
      fixed(r.rps, 0),
      `${fixed(r.rpsMin, 0)}-${fixed(r.rpsMax, 0)}`,
      fixed(r.cpuMicrosPerRequest, 0),
      // autocannon records latency in whole milliseconds; decimals would be invented precision.
      fixed(r.p50Ms, 0),
      fixed(r.p99Ms, 0),
      String(r.non2xx),
      String(r.errors),
      mb(r.peakRssKb),
    ]),
  );
}

/** Each gateway target/bare per case; `CPU` is bare's CPU per request over the gateway's (1 = as cheap). */
export function ratiosTable(all: readonly Ratio[]): string {
  return table(
    ['case', 'ratio', 'req/s', 'CPU', 'p99'],
    all.map((r) => [r.caseName, `${r.target}/bare`, fixed(r.rps, 3), fixed(r.cpu, 3), fixed(r.p99, 3)]),
  );
}

/** The ratios of every round, before their medians: how far the rounds agree. */
export function roundRatiosTable(all: readonly RoundRatio[]): string {
  return table(
    ['case', 'ratio', 'round', 'req/s', 'CPU', 'p99'],
    all.map((r) => [
      r.caseName,
      `${r.target}/bare`,
      String(r.round + 1),
      fixed(r.rps, 3),
      fixed(r.cpu, 3),
      fixed(r.p99, 3),
    ]),
  );
}

const STATUS: Readonly<Record<Goal['status'], string>> = {
  pass: 'PASS',
  fail: 'FAIL',
  'not checked': 'not checked',
};
const STATUS_WIDTH = Math.max(...Object.values(STATUS).map((s) => s.length));

const boundText = (bound: Bound): string =>
  'atLeast' in bound ? `>= ${bound.atLeast}` : `<= ${bound.atMost}`;

/**
 * `value` to 3 decimals, rounded towards failing `bound`, so the figure shown is never on the other side
 * of the bound from the verdict (0.8493 shows as 0.849, not 0.850, against >= 0.85).
 */
function towardsFailing(value: number, bound: Bound): string {
  // Rounded to 1e-6 first, so float noise (0.85 * 1000 = 849.999…) does not move a digit.
  const thousandths = Math.round(value * 1_000_000) / 1000;
  const rounded = 'atLeast' in bound ? Math.floor(thousandths) : Math.ceil(thousandths);
  return (rounded / 1000).toFixed(3);
}

/** One line per goal: PASS or FAIL with the value and its target, or why the run could not check it. */
export function goalLines(all: readonly Goal[]): string {
  return all
    .map((g) => {
      const head = `${STATUS[g.status].padEnd(STATUS_WIDTH)}  ${g.label}`;
      const target = `target ${boundText(g.bound)}`;
      return g.status === 'not checked'
        ? `${head} (${target}): ${g.why}`
        : `${head} = ${towardsFailing(g.value, g.bound)} (${target})`;
    })
    .join('\n');
}
