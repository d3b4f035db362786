/**
 * The goals `npm run bench` checks: each PASS or FAIL with the value the run reached, or "not checked"
 * with why, when the run left out what it needs (a case, a target, or the connections it is defined at).
 */
import { CASES, connectionsFor, type CaseName } from './cases';
import type { Row } from './summary';
import type { TargetName } from './targets';

/** Which way a value must go to pass. */
export type Bound = { readonly atLeast: number } | { readonly atMost: number };

/** One goal as the run met it. */
export type Goal = {
  readonly label: string;
  readonly bound: Bound;
} & (
  | { readonly status: 'pass' | 'fail'; readonly value: number }
  | { readonly status: 'not checked'; readonly why: string }
);

/** Why a figure a goal needs is not in the run. */
interface Missing {
  readonly missing: string;
}

const isMissing = (x: unknown): x is Missing => typeof x === 'object' && x !== null && 'missing' in x;

/** What leaving a target out of a run takes. */
const ABSENT: Partial<Record<TargetName, string>> = {
  bound: 'the bound was not measured (needs --bound)',
  portkey: 'Portkey was not measured (needs --peer portkey)',
};

const absent = (target: TargetName): Missing => ({
  missing: ABSENT[target] ?? `${target} was not measured`,
});

/** The row of (`caseName`, `target`), or why the run has none. */
function rowOf(rows: readonly Row[], caseName: CaseName, target: TargetName): Row | Missing {
  if (!rows.some((r) => r.caseName === caseName)) return { missing: `the ${caseName} case was not run` };
  return rows.find((r) => r.caseName === caseName && r.target === target && r.rounds > 0) ?? absent(target);
}

/** `figure` of `a` over `figure` of `b`, or the first reason either is missing. */
function over(a: Row | Missing, b: Row | Missing, figure: (r: Row) => number): number | Missing {
  if (isMissing(a)) return a;
  if (isMissing(b)) return b;
  return figure(a) / figure(b);
}

/** The highest peak RSS `target` reached over the run's cases (NaN where none was read). */
function peakRss(rows: readonly Row[], target: TargetName): number | Missing {
  const measured = rows.filter((r) => r.target === target && r.rounds > 0);
  if (measured.length === 0) return absent(target);
  const kb = measured.map((r) => r.peakRssKb).filter((v): v is number => v !== undefined);
  return kb.length > 0 ? Math.max(...kb) : Number.NaN;
}

const passes = (value: number, bound: Bound): boolean =>
  'atLeast' in bound ? value >= bound.atLeast : value <= bound.atMost;

/** `found` checked against `bound`; `noFigure` says why a value that is not finite cannot be judged. */
function judge(label: string, bound: Bound, found: number | Missing, noFigure: string): Goal {
  if (isMissing(found)) return { label, bound, status: 'not checked', why: found.missing };
  if (!Number.isFinite(found)) return { label, bound, status: 'not checked', why: noFigure };
  return { label, bound, status: passes(found, bound) ? 'pass' : 'fail', value: found };
}

/** The bound's CPU per request over the gateway's: 1 is as cheap as the least its duties can cost. */
const cpuToBound = (rows: readonly Row[]) => (caseName: CaseName) =>
  judge(
    `${caseName} CPU per request gateway/bound`,
    { atLeast: 0.85 },
    over(rowOf(rows, caseName, 'bound'), rowOf(rows, caseName, 'gateway'), (r) => r.cpuMicrosPerRequest),
    'no CPU time was read (no /proc)',
  );

/** The latency goal is defined at 64 connections; a run at other concurrency says nothing about it. */
const P99_CONNECTIONS = 64;

const p99ToBare = (rows: readonly Row[], runConnections: number) => (caseName: CaseName) => {
  const connections = connectionsFor(CASES[caseName], runConnections);
  const found =
    connections === P99_CONNECTIONS
      ? over(rowOf(rows, caseName, 'gateway'), rowOf(rows, caseName, 'bare'), (r) => r.p99Ms)
      : { missing: `the run used ${connections} connections, not ${P99_CONNECTIONS}` };
  return judge(
    `${caseName} p99 gateway/bare at ${P99_CONNECTIONS} connections`,
    { atMost: 2.5 },
    found,
    "bare's p99 read 0 ms",
  );
};

function rssToBare(rows: readonly Row[]): Goal {
  const gateway = peakRss(rows, 'gateway');
  const bare = peakRss(rows, 'bare');
  return judge(
    'peak RSS gateway/bare, highest over the cases',
    { atMost: 2 },
    isMissing(gateway) ? gateway : isMissing(bare) ? bare : gateway / bare,
    'no peak RSS was read (no /proc)',
  );
}

const rpsToPortkey = (rows: readonly Row[]): Goal =>
  judge(
    'json-10 requests/s gateway/portkey',
    { atLeast: 5.5 },
    over(rowOf(rows, 'json-10', 'gateway'), rowOf(rows, 'json-10', 'portkey'), (r) => r.rps),
    'Portkey answered no requests',
  );

/** Every goal, in the report's order, for the gateway (the in-memory one) in a run at `connections`. */
export function goals(rows: readonly Row[], connections: number): Goal[] {
  return [
    ...(['json', 'stream', 'messages'] as const).map(cpuToBound(rows)),
    ...(['json', 'stream'] as const).map(p99ToBare(rows, connections)),
    rssToBare(rows),
    rpsToPortkey(rows),
  ];
}
