/**
 * The measurement plan: check each target answers each case correctly, then measure every (case, target)
 * once per round, the targets interleaved so slow drift of a shared 2-core machine hits both alike.
 */
import { CASES, connectionsFor, type BenchCase } from './cases';
import { fetchSample, runLoad, type LoadShape } from './load';
import type { BenchOptions } from './options';
import type { Child } from './processes';
import type { Sample } from './summary';
import type { Target } from './targets';

/** Throws, naming the target and case, unless every target answers every case with a correct 200. */
export async function checkSamples(targets: readonly Target[], options: BenchOptions): Promise<void> {
  for (const caseName of options.cases) {
    for (const target of targets) {
      const { status, body } = await fetchSample(target.request(CASES[caseName]));
      const problem = status === 200 ? CASES[caseName].problemWith(body) : `status ${status}`;
      if (problem) {
        throw new Error(
          `${target.name} answered the ${caseName} case wrongly: ${problem}; body: ${body.slice(0, 300)}`,
        );
      }
    }
  }
}

/** Alternates which target goes first (ABBA), so neither is always measured on a warmer machine. */
const orderFor = (round: number, targets: readonly Target[]): readonly Target[] =>
  round % 2 === 0 ? targets : [...targets].reverse();

async function measureOne(target: Target, benchCase: BenchCase, options: BenchOptions) {
  const request = target.request(benchCase);
  const connections = connectionsFor(benchCase, options.connections);
  const shape = (durationS: number): LoadShape => ({ connections, durationS });
  // The warm-up fills connection pools and lets the JIT settle; its figures are thrown away.
  if (options.warmupS > 0) await runLoad(request, shape(options.warmupS));
  const cpuBefore = target.child.cpuMicros();
  const figures = await runLoad(request, shape(options.durationS));
  const cpuAfter = target.child.cpuMicros();
  const cpuMicrosPerRequest =
    cpuBefore === undefined || cpuAfter === undefined || figures.requests === 0
      ? undefined
      : (cpuAfter - cpuBefore) / figures.requests;
  return { figures, cpuMicrosPerRequest, peakRssKb: target.child.peakRssKb() };
}

const progress = (s: Sample, rounds: number): string =>
  `round ${s.round + 1}/${rounds}  ${s.caseName.padEnd(6)}  ${s.target.padEnd(13)}  ` +
  `${s.figures.rps.toFixed(0).padStart(6)} req/s  p99 ${s.figures.p99Ms} ms` +
  (s.cpuMicrosPerRequest === undefined ? '' : `  ${s.cpuMicrosPerRequest.toFixed(0)} µs CPU/request`);

/** Runs the plan; `children` are checked after every run so a crashed process fails the run at once. */
export async function measureAll(
  targets: readonly Target[],
  children: readonly Child[],
  options: BenchOptions,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let round = 0; round < options.rounds; round++) {
    for (const caseName of options.cases) {
      for (const target of orderFor(round, targets)) {
        const measured = await measureOne(target, CASES[caseName], options);
        for (const child of children) child.assertAlive();
        const sample: Sample = { caseName, target: target.name, round, ...measured };
        samples.push(sample);
        process.stderr.write(`${progress(sample, options.rounds)}\n`);
      }
    }
  }
  return samples;
}
