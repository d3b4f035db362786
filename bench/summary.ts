/** Turning the rounds' measurements into one row per (case, target) and the ratios to bare (goals.ts checks them). */
import type { CaseName } from './cases';
import type { LoadFigures } from './load';
import type { TargetName } from './targets';

/** One measured run. */
export interface Sample {
  readonly caseName: CaseName;
  readonly target: TargetName;
  readonly round: number;
  readonly figures: LoadFigures;
  /** The target process's CPU time over the measured run, per response; undefined without /proc. */
  readonly cpuMicrosPerRequest: number | undefined;
  /** The target process's peak RSS so far (VmHWM), read right after the run. */
  readonly peakRssKb: number | undefined;
}

/** The figures of one (case, target): medians over rounds, counts summed, peak RSS the highest. */
export interface Row {
  readonly caseName: CaseName;
  readonly target: TargetName;
  readonly rounds: number;
  readonly rps: number;
  /** The rounds' lowest and highest requests/s: how much the machine drifted during the run. */
  readonly rpsMin: number;
  readonly rpsMax: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  /** The median over rounds of the target's CPU µs per request; NaN without /proc. */
  readonly cpuMicrosPerRequest: number;
  readonly peakRssKb: number | undefined;
}

/** A gateway target / bare for one case. */
export interface Ratio {
  readonly caseName: CaseName;
  readonly target: TargetName;
  readonly rps: number;
  readonly p99: number;
  /** Bare's CPU per request / the gateway's: like `rps`, 1 is as cheap as the bare proxy. */
  readonly cpu: number;
}

/** One round's ratio of a gateway target to bare, to show how much the rounds agree. */
export interface RoundRatio extends Ratio {
  readonly round: number;
}

/** Each gateway target / bare per case and round, from the samples of that round alone. */
export function roundRatios(samples: readonly Sample[]): RoundRatio[] {
  return samples
    .filter((s) => s.target !== 'bare')
    .flatMap((s) => {
      const bare = samples.find(
        (b) => b.target === 'bare' && b.caseName === s.caseName && b.round === s.round,
      );
      if (!bare) return [];
      const cpu = (bare.cpuMicrosPerRequest ?? Number.NaN) / (s.cpuMicrosPerRequest ?? Number.NaN);
      return [
        {
          caseName: s.caseName,
          target: s.target,
          round: s.round,
          rps: s.figures.rps / bare.figures.rps,
          p99: s.figures.p99Ms / bare.figures.p99Ms,
          cpu,
        },
      ];
    });
}

/** The middle value, or the mean of the two middle ones; NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const at = (i: number): number => sorted[i] ?? Number.NaN;
  return sorted.length % 2 === 1 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

function row(caseName: CaseName, target: TargetName, samples: readonly Sample[]): Row {
  const figures = samples.map((s) => s.figures);
  const rps = figures.map((f) => f.rps);
  const rss = samples.map((s) => s.peakRssKb).filter((kb): kb is number => kb !== undefined);
  return {
    caseName,
    target,
    rounds: samples.length,
    rps: median(rps),
    rpsMin: Math.min(...rps),
    rpsMax: Math.max(...rps),
    p50Ms: median(figures.map((f) => f.p50Ms)),
    p99Ms: median(figures.map((f) => f.p99Ms)),
    non2xx: sum(figures.map((f) => f.non2xx)),
    errors: sum(figures.map((f) => f.errors)),
    cpuMicrosPerRequest: median(
      samples.map((s) => s.cpuMicrosPerRequest).filter((us): us is number => us !== undefined),
    ),
    peakRssKb: rss.length > 0 ? Math.max(...rss) : undefined,
  };
}

/** One row per (case, target) present in `samples`, in the order cases and targets were given. */
export function summarise(
  samples: readonly Sample[],
  cases: readonly CaseName[],
  targets: readonly TargetName[],
): Row[] {
  return cases.flatMap((c) =>
    targets.map((t) =>
      row(
        c,
        t,
        samples.filter((s) => s.caseName === c && s.target === t),
      ),
    ),
  );
}

/** Each gateway target / bare per case, for requests/s (higher is better) and p99 latency (lower is better). */
export function ratios(rows: readonly Row[]): Ratio[] {
  const cases = [...new Set(rows.map((r) => r.caseName))];
  return cases.flatMap((caseName) => {
    const bare = rows.find((r) => r.caseName === caseName && r.target === 'bare');
    if (!bare) return [];
    return rows
      .filter((r) => r.caseName === caseName && r.target !== 'bare')
      .map((r) => ({
        caseName,
        target: r.target,
        rps: r.rps / bare.rps,
        p99: r.p99Ms / bare.p99Ms,
        cpu: bare.cpuMicrosPerRequest / r.cpuMicrosPerRequest,
      }));
  });
}
