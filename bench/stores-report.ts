/** `npm run bench:stores`'s report: Markdown tables of a run, and one line of JSON with its raw figures. */
import type { LoadFigures, SteadyShape } from './load';
import type { KeyBlock, LatencyGoal } from './stores-figures';
import type { StoresOptions } from './stores-options';
import type { RestartFigures } from './stores-restart';
import type { SearchFigures } from './stores-search';
import type { UsageCount, UsageWritten } from './stores-usage';

/** Making the keys. */
export interface KeyFigures {
  readonly concurrency: number;
  readonly blockSize: number;
  readonly blocks: readonly KeyBlock[];
  /** The last block's ms per key over the first's. */
  readonly growth: number;
  readonly totalMs: number;
  /** POSTs whose connection dropped before their answer (each key then looked for, and made once). */
  readonly dropped: number;
}

/** The chat calls beside key creation. */
export interface CallFigures {
  readonly shape: SteadyShape;
  readonly calm: LoadFigures;
  readonly duringKeys: LoadFigures;
  readonly goal: LatencyGoal;
}

/** Everything a run measured. */
export interface StoresRun {
  readonly options: StoresOptions;
  /** The first start, on an empty data directory. */
  readonly emptyStartMs: number;
  readonly keys: KeyFigures;
  readonly calls: CallFigures;
  readonly search: SearchFigures;
  /** The records the gateway's own calls left, counted before it was stopped. */
  readonly ownRecords: UsageCount;
  /** The first gateway's peak RSS once the keys were made, kB. */
  readonly keysPeakRssKb: number | undefined;
  readonly usage: UsageWritten;
  readonly restarts: readonly RestartFigures[];
}

type Align = 'left' | 'right';

/** A Markdown table, its columns padded so it reads as well in a terminal. */
export function markdownTable(
  header: readonly string[],
  align: readonly Align[],
  rows: readonly string[][],
): string {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const cell = (text: string, i: number): string =>
    align[i] === 'right' ? text.padStart(widths[i]!) : text.padEnd(widths[i]!);
  const line = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
  const rule = widths.map((w, i) => (align[i] === 'right' ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w)));
  return [line(header), `| ${rule.join(' | ')} |`, ...rows.map(line)].join('\n');
}

const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
const ms = (n: number): string => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(2) : int(n)} ms` : 'n/a');
const mb = (kb: number | undefined): string => (kb === undefined ? 'n/a' : `${int(kb / 1024)} MB`);
const calls = (f: LoadFigures): string =>
  `p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms (${int(f.requests)} calls, ${f.non2xx} non-2xx, ${f.errors} errors)`;

function goalLine({ status, limitMs }: LatencyGoal): string {
  const verdict = status === 'not checked' ? 'not checked (no calls in one stretch)' : status.toUpperCase();
  return `${verdict}: limit ${limitMs} ms`;
}

function restartRows(r: RestartFigures, n: number): string[][] {
  const counted = r.usage.requests === r.expectedRequests ? 'all' : 'MISSING RECORDS';
  return [
    [`restart ${n}: spawn to ports accepting`, ms(r.startMs)],
    [
      `restart ${n}: usage summary counts`,
      `${int(r.usage.requests)} of ${int(r.expectedRequests)} records (${counted}), in ${ms(r.usage.ms)}`,
    ],
    [`restart ${n}: peak RSS`, mb(r.peakRssKb)],
  ];
}

/** The run, measure by measure. */
export function summaryTable(run: StoresRun): string {
  const { keys, calls: c, search, usage } = run;
  const first = keys.blocks[0];
  const last = keys.blocks[keys.blocks.length - 1];
  return markdownTable(
    ['measure', 'value'],
    ['left', 'left'],
    [
      ['gateway start, empty data dir', ms(run.emptyStartMs)],
      [`keys made (${keys.concurrency} in flight)`, `${int(last?.upTo ?? 0)} in ${ms(keys.totalMs)}`],
      [`ms per key, first block (keys 1–${int(first?.upTo ?? 0)})`, ms(first?.msPerKey ?? NaN)],
      [`ms per key, last block (to key ${int(last?.upTo ?? 0)})`, ms(last?.msPerKey ?? NaN)],
      ['growth, last block / first', `${keys.growth.toFixed(2)}×`],
      ['POSTs whose connection dropped', int(keys.dropped)],
      ['peak RSS after making keys', mb(run.keysPeakRssKb)],
      [`chat calls, calm (${c.shape.ratePerSecond}/s)`, calls(c.calm)],
      ['chat calls, while making keys', calls(c.duringKeys)],
      ['p99 goal: ≤ 3× calm or calm + 25 ms', goalLine(c.goal)],
      ['GET /admin/keys?q=<description>', ms(search.byDescriptionMs)],
      ['GET /admin/keys?team_id=<team>&limit=100', ms(search.byTeamMs)],
      ['GET /admin/keys?limit=100&cursor=<middle id>', ms(search.afterCursorMs)],
      ["records of the bench's own calls", int(run.ownRecords.requests)],
      ['usage records written', `${int(usage.records)}, ${mb(usage.bytes / 1024)}, in ${ms(usage.ms)}`],
      ...run.restarts.flatMap((r, i) => restartRows(r, i + 1)),
    ],
  );
}

/** The cost of a key by the store's size. */
export function blocksTable(keys: KeyFigures): string {
  return markdownTable(
    ['keys made', 'ms per key', 'mean POST ms'],
    ['right', 'right', 'right'],
    keys.blocks.map((b) => [int(b.upTo), b.msPerKey.toFixed(2), b.meanPostMs.toFixed(1)]),
  );
}

/** The whole report, the JSON line last. */
export function storesReport(run: StoresRun): string {
  return [summaryTable(run), '', blocksTable(run.keys), '', `BENCH_STORES ${JSON.stringify(run)}`].join('\n');
}
