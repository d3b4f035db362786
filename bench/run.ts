/**
 * `npm run bench`: the gateway with its full pipeline against a bare http-proxy-3 passthrough, both in
 * front of the same simulator, in one run; and the same gateway with its rate limits counted on Redis
 * (`gateway-redis`, unless `--redis off`); with `--bound`, the bound (bound-proxy.ts) as well; with
 * `--peer portkey`, the Portkey gateway (portkey.ts). A report, not a gate: it exits 0 whether or not the
 * goals are met, and non-zero only when the run itself failed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cleanup } from './cleanup';
import { cpuPinning, type Pinning } from './cpu-pinning';
import { CASES, connectionsFor } from './cases';
import { goals } from './goals';
import { checkSamples, measureAll } from './measure';
import { parseOptions, USAGE, type BenchOptions } from './options';
import { stopAll } from './processes';
import { figuresTable, goalLines, ratiosTable, roundRatiosTable } from './report';
import { installPortkey, portkeyDir, type PortkeyInstall } from './portkey-install';
import { startPortkey } from './portkey';
import { ratios, roundRatios, summarise, type Sample } from './summary';
import { deletePrefix } from './redis-keys';
import { startBound, startProxy, startGateway, startSimulator, type TargetName } from './targets';
import { drainReport, drainVideo, type DrainFigures } from './video-drain';

/** Startup, sample checks and shutdown, on top of the load time. */
const OVERHEAD_S = 60;

/** The longest installing the peer may take, on a first run. */
const PEER_INSTALL_S = 300;

/** The longest a run may take before it is abandoned, so it always stops by itself. */
const deadlineMs = (o: BenchOptions): number =>
  (o.rounds * o.cases.length * targetNames(o).length * (o.warmupS + o.durationS) +
    OVERHEAD_S +
    (o.peer ? PEER_INSTALL_S : 0) +
    (o.videoTasks ? VIDEO_TIMEOUT_S : 0)) *
  1000;

/** Read before this process is pinned to one CPU, after which Node reports one. */
const CPUS = availableParallelism();

/** The longest the video drain may take. */
const VIDEO_TIMEOUT_S = 300;

const targetNames = (o: BenchOptions): TargetName[] => [
  'bare',
  'gateway',
  ...(o.redisUrl ? (['gateway-redis'] as const) : []),
  ...(o.bound ? (['bound'] as const) : []),
  ...(o.peer ? [o.peer] : []),
];

interface Results {
  readonly samples: Sample[];
  readonly video: DrainFigures | undefined;
  readonly peer: PortkeyInstall | undefined;
}

async function bench(options: BenchOptions, cleanup: Cleanup, pinning: Pinning): Promise<Results> {
  // Before anything runs: a first install's npm work would disturb nothing yet.
  const peer = options.peer ? await installPortkey(portkeyDir(), PEER_INSTALL_S * 1000) : undefined;
  const tmp = await mkdtemp(join(tmpdir(), 'gateway-bench-'));
  cleanup.add('temp dir', () => rm(tmp, { recursive: true, force: true }));
  cleanup.add('child processes', stopAll);
  const sim = await startSimulator();
  const gateway = await startGateway(sim.url, tmp);
  const targets = [await startProxy('bare', sim.url), gateway];
  if (options.redisUrl) {
    const redis = { url: options.redisUrl, keyPrefix: `bench:${process.pid}:${Date.now()}:` };
    cleanup.add('redis keys', () => deletePrefix(redis));
    targets.push(await startGateway(sim.url, tmp, { redis }));
  }
  if (options.bound) targets.push(await startBound(sim.url, tmp));
  if (peer) targets.push(await startPortkey(peer, sim.url, tmp));
  pinning.loadSide(process.pid);
  pinning.loadSide(sim.child.pid);
  for (const target of targets) pinning.proxy(target.child.pid);
  await checkSamples(targets, options);
  const samples = await measureAll(targets, [sim.child, ...targets.map((t) => t.child)], options);
  const video =
    options.videoTasks > 0
      ? await drainVideo(gateway, sim.url, options.videoTasks, VIDEO_TIMEOUT_S * 1000)
      : undefined;
  return { samples, video, peer };
}

/** The cases that fix their own connections, as the header says them: ` (json-10 at 10)`. */
function fixedConnections(options: BenchOptions): string {
  const fixed = options.cases
    .filter((c) => CASES[c].connections !== undefined)
    .map((c) => `${c} at ${connectionsFor(CASES[c], options.connections)}`);
  return fixed.length > 0 ? ` (${fixed.join(', ')})` : '';
}

function print({ samples, video, peer }: Results, options: BenchOptions, pinning: Pinning): void {
  const rows = summarise(samples, options.cases, targetNames(options));
  const all = ratios(rows);
  const checked = goals(rows, options.connections);
  const { connections, durationS, warmupS, rounds } = options;
  console.log(
    `\n${connections} connections${fixedConnections(options)}, ${warmupS} s warm-up + ${durationS} s ` +
      `measured, median of ${rounds} round(s), ${CPUS} CPUs, Node ${process.version}; ${pinning.description}` +
      `${peer ? `\npeer: ${peer.description}` : ''}\n`,
  );
  console.log(`${figuresTable(rows)}\n`);
  console.log(`${roundRatiosTable(roundRatios(samples))}\n`);
  console.log(`${ratiosTable(all)}\n`);
  console.log(goalLines(checked));
  if (video) console.log(`\n${drainReport(video)}`);
  const run = {
    options,
    pinning: pinning.description,
    peer: peer?.description,
    rows,
    ratios: all,
    goals: checked,
    video,
  };
  console.log(`BENCH_JSON ${JSON.stringify(run)}`);
}

/** Ends the run with `code` after cleaning up, on a signal or when the deadline passes. */
function abortOn(cleanup: Cleanup, options: BenchOptions): void {
  const abort = (why: string, code: number) => (): void => {
    process.stderr.write(`bench: ${why}; cleaning up\n`);
    void cleanup.run().finally(() => process.exit(code));
  };
  process.once('SIGINT', abort('interrupted', 130));
  process.once('SIGTERM', abort('terminated', 143));
  setTimeout(abort(`took longer than ${deadlineMs(options) / 1000} s`, 1), deadlineMs(options)).unref();
}

async function main(): Promise<void> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`bench: ${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  const cleanup = new Cleanup();
  abortOn(cleanup, options);
  try {
    const pinning = cpuPinning();
    print(await bench(options, cleanup, pinning), options, pinning);
  } finally {
    await cleanup.run();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
