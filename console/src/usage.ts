/** Usage: requests, tokens or cost over time stacked by model, from the roll-ups; a table and CSV below. */
import { html } from 'htm/preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { List, UsageSummaryRow } from '../../core/admin/wire';
import { api } from './api';
import { StackedChart, type Stack } from './chart';
import { FilterInput } from './filter-input';
import { csv, download, money } from './format';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
type Period = 'hour' | 'day';
type Metric = 'requests' | 'tokens' | 'cost';

const METRICS: Record<Metric, { of: (r: UsageSummaryRow) => number; format: (v: number) => string }> = {
  requests: { of: (r) => r.requests, format: (v) => v.toLocaleString('en-US') },
  tokens: { of: (r) => r.input_tokens + r.output_tokens, format: (v) => v.toLocaleString('en-US') },
  cost: { of: (r) => r.cost_micros, format: money },
};

type Range = '1' | '7' | '30' | 'custom';

/** `[from, to)` ending with the current hour (or day), both on the hour as the API requires. */
function lastDays(period: Period, days: number): { from: number; to: number } {
  const unit = period === 'hour' ? HOUR : DAY;
  const to = Math.floor(Date.now() / unit) * unit + unit;
  return { from: to - days * DAY, to };
}

/** Whole UTC days from `fromDay` through `toDay` (`YYYY-MM-DD`, both included), or why not. */
function customDays(fromDay: string, toDay: string): { from: number; to: number } | string {
  const from = Date.parse(`${fromDay}T00:00:00Z`);
  const to = Date.parse(`${toDay}T00:00:00Z`) + DAY;
  if (Number.isNaN(from) || Number.isNaN(to)) return 'Choose both days of the range.';
  if (from >= to) return 'The range must start on or before the day it ends.';
  if (to - from > MAX_DAYS * DAY) return `A range may span at most ${MAX_DAYS} days.`;
  return { from, to };
}

/** A range longer than this would draw more bars than the chart has pixels for. */
const MAX_DAYS = 400;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function summaryPath(groupBy: string, from: number, to: number, keyId: string, model: string): string {
  const params = new URLSearchParams({
    group_by: groupBy,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
  });
  if (keyId) params.set('key_id', keyId);
  if (model) params.set('model', model);
  return `/admin/usage/summary?${params.toString()}`;
}

/** Every bucket of the range (empty ones as zero) and one stack per model. */
function stacksOf(rows: readonly UsageSummaryRow[], metric: Metric, from: number, to: number, unit: number) {
  const x: number[] = [];
  for (let t = from; t < to; t += unit) x.push(t / 1000);
  const models = [...new Set(rows.map((r) => r.model ?? ''))].sort();
  const stacks: Stack[] = models.map((m) => ({ label: m, values: x.map(() => 0) }));
  for (const r of rows) {
    const i = Math.floor((Date.parse(r.period!) - from) / unit);
    const stack = stacks[models.indexOf(r.model ?? '')];
    if (stack && i >= 0 && i < x.length) stack.values[i]! += METRICS[metric].of(r);
  }
  return { x, stacks };
}

/** Runs `load` when `deps` change and hands its answer to `set`, ignoring answers that came too late. */
function useLoad<T>(
  load: () => Promise<T> | undefined,
  set: (v: T) => void,
  onError: (m: string) => void,
  deps: unknown[],
) {
  useEffect(() => {
    let live = true;
    load()
      ?.then((v) => live && set(v))
      .catch((e: Error) => live && onError(e.message));
    return () => {
      live = false;
    };
  }, deps);
}

export function UsageView() {
  const [period, setPeriod] = useState<Period>('hour');
  const [range, setRange] = useState<Range>('1');
  const [fromDay, setFromDay] = useState(dayOf(Date.now() - 6 * DAY));
  const [toDay, setToDay] = useState(dayOf(Date.now()));
  const [keyId, setKeyId] = useState('');
  const [model, setModel] = useState('');
  const [metric, setMetric] = useState<Metric>('requests');
  const [rows, setRows] = useState<readonly UsageSummaryRow[]>([]);
  /** The query the rows answer, on the page as `data-loaded` (tests and the console bench wait for it). */
  const [loaded, setLoaded] = useState('');
  const [models, setModels] = useState<string[]>([]);
  const [error, setError] = useState('');
  const bounds = useMemo(
    () => (range === 'custom' ? customDays(fromDay, toDay) : lastDays(period, Number(range))),
    [period, range, fromDay, toDay],
  );
  const { from, to } = typeof bounds === 'string' ? { from: 0, to: 0 } : bounds;
  const key = keyId.trim();

  const rowsPath = summaryPath(`model,${period}`, from, to, key, model);
  useLoad(
    () => (typeof bounds === 'string' ? undefined : api<List<UsageSummaryRow>>('GET', rowsPath)),
    (r) => (setRows(r.data), setLoaded(rowsPath), setError('')),
    setError,
    [period, key, model, from, to],
  );
  // The models used in the range (by the chosen key), for the model filter.
  useLoad(
    () =>
      typeof bounds === 'string'
        ? undefined
        : api<List<UsageSummaryRow>>('GET', summaryPath('model', from, to, key, '')),
    (r) => setModels(r.data.map((row) => row.model ?? '')),
    setError,
    [key, from, to],
  );
  useEffect(() => {
    if (typeof bounds === 'string') setError(bounds);
  }, [bounds]);

  const unit = period === 'hour' ? HOUR : DAY;
  const chart = useMemo(() => stacksOf(rows, metric, from, to, unit), [rows, metric, from, to, unit]);
  const value = (setter: (v: string) => void) => (e: Event) => setter((e.target as HTMLInputElement).value);
  const modelOptions = model && !models.includes(model) ? [model, ...models] : models;

  return html`<section data-loaded=${loaded}>
    <div class="toolbar">
      <h1>Usage</h1>
      <select
        name="metric"
        aria-label="Metric"
        value=${metric}
        onChange=${value((v) => setMetric(v as Metric))}
      >
        <option value="requests">Requests</option>
        <option value="tokens">Tokens</option>
        <option value="cost">Cost</option>
      </select>
      <select name="period" aria-label="Per" value=${period} onChange=${value((v) => setPeriod(v as Period))}>
        <option value="hour">per hour</option>
        <option value="day">per day</option>
      </select>
      <select name="range" aria-label="Range" value=${range} onChange=${value((v) => setRange(v as Range))}>
        <option value="1">last 24 hours</option>
        <option value="7">last 7 days</option>
        <option value="30">last 30 days</option>
        <option value="custom">days from … to …</option>
      </select>
      ${
        range === 'custom' &&
        html`<input
            type="date"
            name="from"
            aria-label="From (UTC)"
            value=${fromDay}
            onChange=${value(setFromDay)}
          />
          <input type="date" name="to" aria-label="To (UTC)" value=${toDay} onChange=${value(setToDay)} />`
      }
      <select name="model" aria-label="Model" value=${model} onChange=${value(setModel)}>
        <option value="">All models</option>
        ${modelOptions.map((m) => html`<option value=${m}>${m}</option>`)}
      </select>
      <${FilterInput} name="key" placeholder="Key id (all keys)" value=${keyId} onCommit=${setKeyId} />
    </div>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <${StackedChart}
      x=${chart.x}
      stacks=${chart.stacks}
      format=${METRICS[metric].format}
      whole=${metric !== 'cost'}
      daily=${period === 'day'}
    />
    <${UsageTable} rows=${rows} period=${period} />
  </section>`;
}

const COLUMNS = ['requests', 'input_tokens', 'output_tokens', 'cost', 'cost_unknown_requests'];

/** The figures of a row, as the table and the CSV show them (money exact, without thousands commas). */
const figures = (r: UsageSummaryRow) => [
  r.requests,
  r.input_tokens,
  r.output_tokens,
  money(r.cost_micros).replace(/,/g, ''),
  r.cost_unknown_requests,
];

/** Sums rows per model, and over all of them: the table shows the range's totals, not every bucket. */
function totalsByModel(rows: readonly UsageSummaryRow[]): {
  models: UsageSummaryRow[];
  all: UsageSummaryRow;
} {
  const byModel = new Map<string, UsageSummaryRow>();
  const all: UsageSummaryRow = { model: 'all models', ...zero() };
  for (const r of rows) {
    const model = r.model ?? '';
    const sum = byModel.get(model) ?? { model, ...zero() };
    byModel.set(model, sum);
    for (const target of [sum, all]) {
      target.requests += r.requests;
      target.input_tokens += r.input_tokens;
      target.output_tokens += r.output_tokens;
      target.cost_micros += r.cost_micros;
      target.cost_unknown_requests += r.cost_unknown_requests;
    }
  }
  const models = [...byModel.values()].sort((a, b) => (a.model! < b.model! ? -1 : 1));
  return { models, all };
}

const zero = () => ({
  requests: 0,
  input_tokens: 0,
  output_tokens: 0,
  cost_micros: 0,
  cost_unknown_requests: 0,
});

/**
 * The range's totals by model (a few rows, however long the range), and the CSV of every period and
 * model behind the chart.
 */
function UsageTable(props: { rows: readonly UsageSummaryRow[]; period: Period }) {
  const { models, all } = useMemo(() => totalsByModel(props.rows), [props.rows]);
  const row = (r: UsageSummaryRow, total = false) =>
    html`<tr class=${total ? 'total' : ''}>
      <td>${r.model}</td>
      ${figures(r).map((c) => html`<td>${c}</td>`)}
    </tr>`;
  const exportCsv = () =>
    download(
      `usage-per-${props.period}.csv`,
      csv([
        ['period', 'model', ...COLUMNS],
        ...props.rows.map((r) => [r.period ?? '', r.model ?? '', ...figures(r)]),
      ]),
    );
  return html`<div class="toolbar">
      <h2>Totals by model</h2>
      <button type="button" disabled=${props.rows.length === 0} onClick=${exportCsv}>
        Export CSV (per ${props.period})
      </button>
    </div>
    <table class="usage">
      <thead>
        <tr>
          ${['model', ...COLUMNS].map((h) => html`<th>${h.replace(/_/g, ' ')}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${
          models.length === 0 &&
          html`<tr>
            <td colspan=${COLUMNS.length + 1} class="empty">No usage in this range.</td>
          </tr>`
        }
        ${models.map((r) => row(r))} ${models.length > 1 && row(all, true)}
      </tbody>
    </table>`;
}
