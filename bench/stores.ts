/**
 * `npm run bench:stores`: how the embedded stores' cost grows with a platform's size, measured on a real
 * gateway process through its admin API as an operator meets it. It makes `--keys` keys (8 in flight)
 * while light chat calls go on beside them, searches them, writes `--records` usage records into the
 * stopped gateway's data directory, and restarts it twice on all of it. A report, not a gate: it exits 0
 * whatever the figures, and non-zero only when the run itself failed.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Cleanup } from './cleanup';
import { gatewayYaml } from './gateway-config';
import { dataDirOf, startGatewayOn, type GatewayHome, type GatewayLaunch } from './gateway-process';
import { calmCalls, chatRequest, checkChat, probed, PROBE } from './latency-probe';
import { stopAll } from './processes';
import { growth, latencyGoal } from './stores-figures';
import { makeKey, makeKeys, middleKey, KEY_CONCURRENCY, type KeysMade } from './stores-keys';
import { parseStoresOptions, STORES_USAGE, type StoresOptions } from './stores-options';
import { storesReport, type CallFigures, type KeyFigures, type StoresRun } from './stores-report';
import { RECORDS_PER_RESTART, restart, type RestartFigures } from './stores-restart';
import { searchKeys, type SearchFigures } from './stores-search';
import { checkDisk, countUsage, NotEnoughDisk, writeUsageBefore, type UsageCount } from './stores-usage';
import { startSimulator } from './targets';

/** A start reads every usage record: allow a minute, and a minute more per million records. */
const startTimeoutMs = (records: number): number => 60_000 + records * 0.06;
/** Calls cut off when the probe stopped may still be finishing in the gateway. */
const SETTLE_MS = 1_000;
const RESTARTS = 2;
/** Long enough for a child's exit to be noticed after a call to it failed. */
const EXIT_NOTICED_MS = 500;

const say = (line: string): void => void process.stderr.write(`bench:stores: ${line}\n`);

/** What the first gateway, on an empty data directory, measured. */
interface FirstRun {
  readonly emptyStartMs: number;
  readonly made: KeysMade;
  readonly calls: CallFigures;
  readonly search: SearchFigures;
  readonly ownRecords: UsageCount;
  readonly peakRssKb: number | undefined;
}

/** Starts the gateway on an empty data dir, makes the keys with chat calls going, and searches them. */
async function firstRun(home: GatewayHome, launch: GatewayLaunch, keys: number): Promise<FirstRun> {
  const gw = await startGatewayOn(home, launch);
  try {
    say(`gateway started in ${gw.startMs.toFixed(0)} ms; calm chat calls`);
    const api = { url: gw.adminUrl, token: home.token };
    const chat = chatRequest(gw.url, (await makeKey(api, 'latency probe')).key);
    await checkChat(chat);
    const calm = await calmCalls(chat);
    say(`calm p99 ${calm.p99Ms} ms; making ${keys} keys`);
    const { result: made, calls: duringKeys } = await probed(chat, () =>
      makeKeys(api, keys, (n, of, ms) => say(`keys ${n}/${of}: ${ms.toFixed(2)} ms per key`)),
    );
    const search = await searchKeys(
      api,
      middleKey(made),
      made.keys.map((k) => k.id),
    );
    await sleep(SETTLE_MS);
    return {
      emptyStartMs: gw.startMs,
      made,
      calls: { shape: PROBE, calm, duringKeys, goal: latencyGoal(calm, duringKeys) },
      search,
      ownRecords: await countUsage(api),
      peakRssKb: gw.child.peakRssKb(),
    };
  } catch (e) {
    await sleep(EXIT_NOTICED_MS);
    gw.child.assertAlive(); // a gateway that died says why, with its last output
    throw e;
  } finally {
    await gw.child.stop();
  }
}

const keyFigures = (made: KeysMade): KeyFigures => ({
  concurrency: KEY_CONCURRENCY,
  blockSize: made.blockSize,
  blocks: made.blocks,
  growth: growth(made.blocks),
  totalMs: made.totalMs,
  dropped: made.dropped,
});

async function run(options: StoresOptions, cleanup: Cleanup): Promise<StoresRun> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-stores-'));
  cleanup.add('delete the temp dir', () => rm(dir, { recursive: true, force: true }));
  cleanup.add('stop the child processes', stopAll);
  await checkDisk(dir, options.keys, options.records);
  const sim = await startSimulator();
  const home: GatewayHome = { dir, token: randomBytes(24).toString('base64url') };
  await writeFile(join(dir, 'gateway.yaml'), gatewayYaml(sim.url));
  const launch = (n: number): GatewayLaunch => ({
    timeoutMs: startTimeoutMs(options.records),
    stdoutFile: join(dir, `gateway-${n}.log`),
  });
  const before = Date.now();
  const first = await firstRun(home, launch(0), options.keys);
  say(`writing ${options.records} usage records`);
  const ids = first.made.keys.map((k) => k.id);
  const usage = await writeUsageBefore(dataDirOf(home), ids, options.records, before);
  const restarts: RestartFigures[] = [];
  for (let n = 1; n <= RESTARTS; n++) {
    const expected = usage.records + first.ownRecords.requests + (n - 1) * RECORDS_PER_RESTART;
    say(`restart ${n}`);
    restarts.push(await restart(home, launch(n), middleKey(first.made), expected));
  }
  return {
    options,
    emptyStartMs: first.emptyStartMs,
    keys: keyFigures(first.made),
    calls: first.calls,
    search: first.search,
    ownRecords: first.ownRecords,
    keysPeakRssKb: first.peakRssKb,
    usage,
    restarts,
  };
}

async function main(): Promise<void> {
  let options: StoresOptions;
  try {
    options = parseStoresOptions(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`bench:stores: ${(err as Error).message}\n${STORES_USAGE}\n`);
    process.exit(2);
  }
  const cleanup = new Cleanup();
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => void cleanup.run().finally(() => process.exit(code)));
  }
  try {
    process.stdout.write(`${storesReport(await run(options, cleanup))}\n`);
  } finally {
    await cleanup.run();
  }
}

/** The error's stack, and its causes' (fetch says only "fetch failed" and puts why in its cause). */
function explain(err: unknown): string {
  if (err instanceof NotEnoughDisk) return err.message;
  if (!(err instanceof Error)) return String(err);
  return `${err.stack ?? err.message}${err.cause === undefined ? '' : `\ncaused by: ${explain(err.cause)}`}`;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:stores: ${explain(err)}\n`);
  process.exit(1);
});
