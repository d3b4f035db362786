/**
 * `npm run bench:instructions`: the machine instructions each proxy runs per request, counted by
 * valgrind's callgrind, for the bare passthrough, the floor (floor-proxy.ts) and the gateway as the
 * benchmark configures it. Where `npm run bench`'s times drift with whatever else the machine runs, these
 * counts repeat to 1–2% run after run, so a change's cost is seen even when it is a few percent.
 * They count the processes' own code (JavaScript, Node, V8 and its helper threads), not the kernel's:
 * system calls, the same for every target, are left out, so the ratios read somewhat lower than
 * `npm run bench`'s CPU ratios.
 *
 * For each case, each target is started under callgrind with counting off, gets a warm-up, a full
 * garbage collection (settle-heap.ts) and a second warm-up (the collection throws compiled code away),
 * then counting is turned on for exactly `--requests` requests and the count is read back. Without the
 * collection, whether the window held a major one moved the json case by about 25k instructions a
 * request from one run of a build to the next.
 *
 * A warm-up does not finish the JIT's work: V8 keeps optimising functions that only now became hot, and
 * re-optimising those a new map deoptimised, for tens of thousands of requests. That work runs in
 * TurboFan's background jobs, and in a counted window it came to 34k–65k instructions a request (5–10%),
 * differing between two builds by more than the change measured. It is a one-off cost of a young process,
 * not of a request, so it is read from the dump (the jobs' inclusive count) and shown apart: the
 * per-request figure is the rest, which is what a long-running instance spends on each request.
 *
 * With `--cache on`, callgrind also simulates one core's caches (cache-sim.ts) and the report adds the
 * first- and second-level misses per request. `npm run bench`'s CPU per request follows these as well as
 * the instructions: a process that touches more code and fresh memory per request finds less of it, and
 * of the kernel's and Node's own working set, in the core's caches, and all of it runs slower.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CACHE_EVENTS, cacheSimDescription, cacheSimFlags } from './cache-sim';
import { CASES, CASE_NAMES, connectionsFor, gatewayOnly, type CaseName } from './cases';
import { sendCount } from './load';
import { nameList, onOff, positiveInt, ratio } from './options';
import { startOtlpSink } from './otlp-sink';
import { stopAll } from './processes';
import { table } from './report';
import { nameJitCode } from './jit-names';
import {
  startBound,
  startGateway,
  startProxy,
  startSimulator,
  TEAM_SHAPES,
  type Target,
  type TeamShape,
} from './targets';

const USAGE =
  'usage: npm run bench:instructions -- [--cases json,stream,messages,responses,responses-stream] [--targets bare,floor,bound,gateway] [--access on|off] [--team off|plain|limited] [--tracing off|RATIO] [--requests 5000] [--warmup 2000] [--connections 8] [--dumps DIR] [--cache off|on] [--response-cache off|on] [--guardrails off|on]';

const TARGETS = ['bare', 'floor', 'bound', 'gateway'] as const;
type CountedTarget = (typeof TARGETS)[number];

interface Options {
  readonly cases: readonly CaseName[];
  /** Ratios are to `bare`, so without it only the counts are printed. */
  readonly targets: readonly CountedTarget[];
  /** The access line of the gateway and the bound: on as shipped. */
  readonly access: boolean;
  /** The gateway's key's team (targets.ts): none, one with only a name, or one with a budget and limits. */
  readonly team: TeamShape;
  /** The share of requests the gateway traces (to an OTLP sink), or undefined for tracing off. */
  readonly tracing: number | undefined;
  readonly requests: number;
  readonly warmup: number;
  readonly connections: number;
  /** Where callgrind's dumps are kept for `callgrind_annotate`; absent, they go to a directory removed at the end. */
  readonly dumps: string | undefined;
  /** Counts cache misses too, simulating one core's caches (cache-sim.ts); about twice as slow. */
  readonly cache: boolean;
  /**
   * The gateway's cases with the response cache stage on, every request missing (a new id in each
   * prompt, cases.ts): what the stage costs a call it does not answer. The `cached` case has it on,
   * hitting, either way.
   */
  readonly responseCache: boolean;
  /** The gateway's cases with the guardrails stage on: five rules and the PII set, matching nothing. */
  readonly guardrails: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      cases: { type: 'string', default: 'json,stream,messages' },
      targets: { type: 'string', default: TARGETS.join(',') },
      access: { type: 'string', default: 'on' },
      team: { type: 'string', default: 'off' },
      tracing: { type: 'string', default: 'off' },
      // Fewer requests count a major GC or none by chance: counts of 2,000 varied by 10%, of 5,000 by 2%.
      requests: { type: 'string', default: '5000' },
      warmup: { type: 'string', default: '2000' },
      connections: { type: 'string', default: '8' },
      dumps: { type: 'string' },
      cache: { type: 'string', default: 'off' },
      'response-cache': { type: 'string', default: 'off' },
      guardrails: { type: 'string', default: 'off' },
    },
  });
  return {
    cases: nameList('cases', values.cases, CASE_NAMES),
    targets: nameList('targets', values.targets, TARGETS),
    access: onOff('access', values.access),
    team: nameList('team', values.team, TEAM_SHAPES)[0]!,
    tracing: values.tracing === 'off' ? undefined : ratio('tracing', values.tracing),
    requests: positiveInt('requests', values.requests, 1),
    warmup: positiveInt('warmup', values.warmup, 1),
    connections: positiveInt('connections', values.connections, 1),
    dumps: values.dumps,
    cache: onOff('cache', values.cache),
    responseCache: onOff('response-cache', values['response-cache']),
    guardrails: onOff('guardrails', values.guardrails),
  };
}

/** callgrind, counting nothing until told to (so start-up is not counted), writing its dumps to `dir`. */
const callgrind = (dir: string, cache: boolean): string[] => [
  'valgrind',
  '--tool=callgrind',
  '--instr-atstart=no',
  // V8 rewrites its generated code in place; valgrind must notice to count the new code.
  '--smc-check=all-non-file',
  `--callgrind-out-file=${join(dir, 'callgrind.%p')}`,
  ...(cache ? cacheSimFlags() : []),
];

/** The function whose inclusive count is TurboFan's background compilation. */
const COMPILE_JOB = 'v8::internal::OptimizingCompileDispatcher::CompileTask::RunInternal()';

/** A dump's counts by event name (`Ir`, and with the cache simulation `I1mr`, `DLmw`, ...). */
type EventCounts = Readonly<Record<string, number>>;

interface DumpCount {
  readonly total: EventCounts;
  /** Of `total`, what TurboFan's background jobs spent optimising code. */
  readonly compiling: EventCounts;
}

/** Counts in a dump's or callgrind_annotate's order of events; annotate writes `.` for none. */
const countsOf = (events: readonly string[], fields: readonly string[]): EventCounts =>
  Object.fromEntries(
    events.map((e, i) => [e, fields[i] === '.' ? 0 : Number((fields[i] ?? '0').replaceAll(',', ''))]),
  );

/** The counts of the dump `callgrind_control --dump` just wrote for `pid` (the newest one). */
async function lastDumpCount(dir: string, pid: number): Promise<DumpCount> {
  const prefix = `callgrind.${pid}.`;
  const dumps = (await readdir(dir)).filter((f) => f.startsWith(prefix));
  const newest = dumps.sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length))).pop();
  if (newest === undefined) throw new Error(`callgrind wrote no dump for process ${pid}`);
  const file = join(dir, newest);
  const text = await readFile(file, 'utf8');
  const events = /^events:\s*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/);
  const totals = /^(?:totals|summary):\s*(.+)$/m.exec(text)?.[1]?.trim().split(/\s+/);
  if (!events || !totals) throw new Error(`no events or totals in ${newest}`);
  return { total: countsOf(events, totals), compiling: inclusiveCounts(file, events, COMPILE_JOB) };
}

/** `fn`'s inclusive counts in a dump, by callgrind_annotate (0 when it never ran). */
function inclusiveCounts(file: string, events: readonly string[], fn: string): EventCounts {
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const line = annotated.split('\n').find((l) => l.includes(`:${fn} `));
  // With several events, each count is followed by its share, `(12.3%)` or `( 1.3%)`: counts only.
  const fields = (line ?? '')
    .trim()
    .split(/\s+/)
    .filter((f) => /^(?:[\d,]+|\.)$/.test(f));
  return countsOf(events, line === undefined ? [] : fields.slice(0, events.length));
}

const control = (pid: number, ...args: string[]): void => {
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore' });
};

interface PerRequest {
  /** Instructions per request, TurboFan's background compilation left out. */
  readonly running: number;
  /** TurboFan's background compilation in the window, per request. */
  readonly compiling: number;
  /** With the cache simulation, misses per request, the compilation's left out as above. */
  readonly misses?: { readonly l1: number; readonly last: number };
}

/** The sum of `events`' counts running (compilation apart), per request. */
const perRequest = (count: DumpCount, events: readonly string[], requests: number): number =>
  events.reduce((sum, e) => sum + (count.total[e] ?? 0) - (count.compiling[e] ?? 0), 0) / requests;

/** Node flags for every counted process: settle-heap.ts, and the `gc()` it calls. */
const SETTLE_ARGS = ['--expose-gc', '--require', join(__dirname, 'settle-heap.js')];

/** A full collection under callgrind takes seconds; this is far more than any took. */
const SETTLE_TIMEOUT_MS = 120_000;

/** A full collection in `target`, waited for (settle-heap.ts). */
async function settleHeap(target: Target): Promise<void> {
  target.child.signal('SIGUSR2');
  await target.child.waitForLine(/^heap settled 1$/, SETTLE_TIMEOUT_MS);
}

/** Instructions per request of `target` on `caseName`, after a warm-up of `options.warmup` requests. */
async function countCase(
  target: Target,
  caseName: CaseName,
  dir: string,
  options: Options,
): Promise<PerRequest> {
  const pid = target.child.pid;
  if (pid === undefined) throw new Error(`${target.name} has no process`);
  const request = target.request(CASES[caseName]);
  // autocannon sends exactly `amount` requests, and may leave the last response out of its count. The
  // bare proxy, slowed down by valgrind, has answered one messages request 502 in a counted window (an
  // upstream connection error; it has no retry): one non-2xx answer in a thousand is tolerated, and said.
  const send = async (amount: number): Promise<void> => {
    const figures = await sendCount(request, connectionsFor(CASES[caseName], options.connections), amount);
    if (figures.non2xx > amount / 1000 || figures.errors > 0 || figures.requests < amount - 1)
      throw new Error(`${target.name} ${caseName}: ${JSON.stringify(figures)}`);
    if (figures.non2xx > 0)
      console.error(`${target.name} ${caseName}: ${figures.non2xx} non-2xx of ${amount}`);
  };
  await send(options.warmup);
  await settleHeap(target);
  await send(options.warmup);
  control(pid, '--instr=on');
  await send(options.requests);
  control(pid, '--dump');
  const count = await lastDumpCount(dir, pid);
  const per = (events: readonly string[]): number => perRequest(count, events, options.requests);
  return {
    running: per(['Ir']),
    compiling: (count.compiling.Ir ?? 0) / options.requests,
    ...(options.cache ? { misses: { l1: per(CACHE_EVENTS.l1), last: per(CACHE_EVENTS.last) } } : {}),
  };
}

interface Row {
  readonly caseName: CaseName;
  readonly target: string;
  readonly perRequest: number;
  readonly compilingPerRequest: number;
  readonly bareOverThis: number;
  readonly l1MissesPerRequest?: number;
  readonly l2MissesPerRequest?: number;
}

const thousands = (n: number): string => Math.round(n).toLocaleString('en');

function rowsTable(rows: readonly Row[], cache: boolean): string {
  const missHeader = cache ? ['L1 misses/request', 'L2 misses/request'] : [];
  return table(
    ['case', 'target', 'instructions/request', 'JIT compiling/request', 'bare/target', ...missHeader],
    rows.map((r) => [
      r.caseName,
      r.target,
      thousands(r.perRequest),
      thousands(r.compilingPerRequest),
      Number.isFinite(r.bareOverThis) ? r.bareOverThis.toFixed(3) : '-',
      ...(cache ? [thousands(r.l1MissesPerRequest ?? NaN), thousands(r.l2MissesPerRequest ?? NaN)] : []),
    ]),
  );
}

function valgrindMissing(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--version'], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (valgrindMissing()) throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
  const dir = options.dumps ?? (await mkdtemp(join(tmpdir(), 'gateway-instructions-')));
  if (options.dumps) await mkdir(options.dumps, { recursive: true });
  try {
    const sim = await startSimulator();
    const sink = options.tracing === undefined ? undefined : await startOtlpSink();
    const tracing = sink && { url: sink.url, ratio: options.tracing ?? 1 };
    const launcher = callgrind(dir, options.cache);
    const how = { launcher, nodeArgs: SETTLE_ARGS, access: options.access, guardrails: options.guardrails };
    const responseCache = (caseName: CaseName) =>
      caseName === 'cached' ? 'hit' : options.responseCache ? 'miss' : undefined;
    const starts: Record<CountedTarget, (tmp: string, caseName: CaseName) => Promise<Target>> = {
      bare: () => startProxy('bare', sim.url, how),
      floor: () => startProxy('floor', sim.url, how),
      bound: (tmp) => startBound(sim.url, tmp, how),
      gateway: (tmp, caseName) =>
        startGateway(sim.url, tmp, {
          ...how,
          team: options.team,
          ...(tracing ? { tracing } : {}),
          ...(responseCache(caseName) ? { responseCache: responseCache(caseName) } : {}),
        }),
    };
    const rows: Row[] = [];
    for (const caseName of options.cases) {
      let bare = Number.NaN;
      for (const name of options.targets) {
        if (gatewayOnly(caseName) && name !== 'gateway') continue;
        // A fresh process per count: in one process, counts after the first were wrong (callgrind 3.19).
        const target = await starts[name](await mkdtemp(join(dir, `${caseName}-`)), caseName);
        const { running: perRequest, compiling, misses } = await countCase(target, caseName, dir, options);
        await target.child.stop();
        const { pid } = target.child;
        if (options.dumps && pid !== undefined) await nameJitCode(dir, pid);
        if (name === 'bare') bare = perRequest;
        rows.push({
          caseName,
          target: name,
          perRequest,
          compilingPerRequest: compiling,
          bareOverThis: bare / perRequest,
          ...(misses ? { l1MissesPerRequest: misses.l1, l2MissesPerRequest: misses.last } : {}),
        });
        console.error(
          `${caseName} ${name}: ${Math.round(perRequest)} instructions per request ` +
            `(+${Math.round(compiling)} compiling)`,
        );
      }
    }
    console.log(
      `\n${options.requests} requests counted per case and target, after ${options.warmup} uncounted; ` +
        `access log ${options.access ? 'on' : 'off'}; the gateway's key's team: ${options.team}; ` +
        `tracing: ${tracing ? `ratio ${tracing.ratio}, ${sink?.exports()} exports received` : 'off'}; ` +
        `response cache: ${options.responseCache ? 'on, every request missing' : 'off'} (\`cached\`: on, hitting); ` +
        `guardrails: ${options.guardrails ? 'on, five rules and the PII set' : 'off'}; ` +
        `TurboFan's background compilation apart` +
        (options.cache ? `; ${cacheSimDescription()}\n` : '\n'),
    );
    console.log(rowsTable(rows, options.cache));
    console.log(`BENCH_INSTRUCTIONS ${JSON.stringify({ options, rows })}`);
    await sink?.close();
  } finally {
    await stopAll();
    if (!options.dumps) await rm(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  console.error(USAGE);
  process.exitCode = 1;
});
