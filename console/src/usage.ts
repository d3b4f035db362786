/**
 * Usage: requests, tokens, cost or what the cache saved over time stacked by model or by endpoint, from
 * the roll-ups; the range's spend and savings above, a table and CSV below. With the endpoint of tool
 * calls chosen, the table names tools and their servers, and the latest calls are listed beneath.
 */
import { html } from 'htm/preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { List, UsageSummaryRow } from '../../core/admin/wire';
import { api } from './api';
import { StackedChart, type Stack } from './chart';
import { FilterInput } from './filter-input';
import { money } from './format';
import { ToolCalls, TOOL_ENDPOINT } from './tool-calls';
import { UsageFigures } from './usage-figures';
import { UsageTable, type StackBy } from './usage-table';
import { useLoad } from './use-load';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
type Period = 'hour' | 'day';
type Metric = 'requests' | 'tokens' | 'cost' | 'saved';

const METRICS: Record<Metric, { of: (r: UsageSummaryRow) => number; format: (v: number) => string }> = {
  requests: { of: (r) => r.requests, format: (v) => v.toLocaleString('en-US') },
  tokens: { of: (r) => r.input_tokens + r.output_tokens, format: (v) => v.toLocaleString('en-US') },
  cost: { of: (r) => r.cost_micros, format: money },
  saved: { of: (r) => r.saved_micros, format: money },
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

/** The server-side filters: empty ones are left out of the query. */
type Filters = Partial<Record<'key_id' | 'model' | 'endpoint', string>>;

function summaryPath(groupBy: string, from: number, to: number, filters: Filters): string {
  const params = new URLSearchParams({
    group_by: groupBy,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
  });
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  return `/admin/usage/summary?${params.toString()}`;
}

/**
 * Every bucket of the range (empty ones as zero) and one stack per model or endpoint, coloured by its
 * place among `palette` (all those of the range) so a filter does not repaint what it keeps.
 */
function stacksOf(
  rows: readonly UsageSummaryRow[],
  by: StackBy,
  metric: Metric,
  bucket: { from: number; to: number; unit: number; palette: readonly string[] },
) {
  const { from, to, unit, palette } = bucket;
  const x: number[] = [];
  for (let t = from; t < to; t += unit) x.push(t / 1000);
  const labels = [...new Set(rows.map((r) => r[by] ?? ''))].sort();
  const color = (label: string, i: number) => (palette.includes(label) ? palette.indexOf(label) : i);
  const stacks: Stack[] = labels.map((label, i) => ({
    label,
    values: x.map(() => 0),
    color: color(label, i),
  }));
  for (const r of rows) {
    const i = Math.floor((Date.parse(r.period!) - from) / unit);
    const stack = stacks[labels.indexOf(r[by] ?? '')];
    if (stack && i >= 0 && i < x.length) stack.values[i]! += METRICS[metric].of(r);
  }
  return { x, stacks };
}

/** The distinct, sorted values of a field, for a filter's options. */
const valuesOf = (rows: readonly UsageSummaryRow[], field: StackBy): string[] =>
  [...new Set(rows.map((r) => r[field] ?? ''))].sort();

/** A filter's options: the values in use, and the chosen one even when the range no longer has it. */
const optionsWith = (values: string[], chosen: string): string[] =>
  chosen && !values.includes(chosen) ? [chosen, ...values] : values;

export function UsageView() {
  const [period, setPeriod] = useState<Period>('hour');
  const [range, setRange] = useState<Range>('1');
  const [fromDay, setFromDay] = useState(dayOf(Date.now() - 6 * DAY));
  const [toDay, setToDay] = useState(dayOf(Date.now()));
  const [keyId, setKeyId] = useState('');
  const [model, setModel] = useState('');
  const [endpoint, setEndpoint] = useState('');
  const [stackBy, setStackBy] = useState<StackBy>('model');
  const [metric, setMetric] = useState<Metric>('requests');
  /**
   * The rows shown, what they are grouped by and whether they are tool calls alone: until the next
   * answer, the previous choice's.
   */
  const [shown, setShown] = useState<{ rows: readonly UsageSummaryRow[]; by: StackBy; tools: boolean }>({
    rows: [],
    by: 'model',
    tools: false,
  });
  /** The query the rows answer, on the page as `data-loaded` (tests and the console bench wait for it). */
  const [loaded, setLoaded] = useState('');
  /** What the range holds (by the chosen key): one row per model and endpoint, for the filters' options. */
  const [used, setUsed] = useState<readonly UsageSummaryRow[]>([]);
  const [error, setError] = useState('');
  const bounds = useMemo(
    () => (range === 'custom' ? customDays(fromDay, toDay) : lastDays(period, Number(range))),
    [period, range, fromDay, toDay],
  );
  const { from, to } = typeof bounds === 'string' ? { from: 0, to: 0 } : bounds;
  const key = keyId.trim();

  const rowsPath = summaryPath(`${stackBy},${period}`, from, to, { key_id: key, model, endpoint });
  useLoad(
    () => (typeof bounds === 'string' ? undefined : api<List<UsageSummaryRow>>('GET', rowsPath)),
    (r) => (
      setShown({ rows: r.data, by: stackBy, tools: endpoint === TOOL_ENDPOINT }),
      setLoaded(rowsPath),
      setError('')
    ),
    setError,
    [rowsPath],
  );
  // The models and endpoints used in the range (by the chosen key), for the filters: one call for both.
  useLoad(
    () =>
      typeof bounds === 'string'
        ? undefined
        : api<List<UsageSummaryRow>>('GET', summaryPath('model,endpoint', from, to, { key_id: key })),
    (r) => setUsed(r.data),
    setError,
    [key, from, to],
  );
  useEffect(() => {
    if (typeof bounds === 'string') setError(bounds);
  }, [bounds]);

  const unit = period === 'hour' ? HOUR : DAY;
  const palette = useMemo(() => valuesOf(used, shown.by), [used, shown.by]);
  const chart = useMemo(
    () => stacksOf(shown.rows, shown.by, metric, { from, to, unit, palette }),
    [shown, metric, from, to, unit, palette],
  );
  const value = (setter: (v: string) => void) => (e: Event) => setter((e.target as HTMLInputElement).value);
  const modelOptions = useMemo(() => optionsWith(valuesOf(used, 'model'), model), [used, model]);
  const endpointOptions = useMemo(() => optionsWith(valuesOf(used, 'endpoint'), endpoint), [used, endpoint]);

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
        <option value="saved">Saved by cache</option>
      </select>
      <select name="period" aria-label="Per" value=${period} onChange=${value((v) => setPeriod(v as Period))}>
        <option value="hour">per hour</option>
        <option value="day">per day</option>
      </select>
      <select
        name="stack"
        aria-label="Stack by"
        value=${stackBy}
        onChange=${value((v) => setStackBy(v as StackBy))}
      >
        <option value="model">by model</option>
        <option value="endpoint">by endpoint</option>
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
      <select name="endpoint" aria-label="Endpoint" value=${endpoint} onChange=${value(setEndpoint)}>
        <option value="">All endpoints</option>
        ${endpointOptions.map(
          (e) => html`<option value=${e}>${e === TOOL_ENDPOINT ? `${e} (tool calls)` : e}</option>`,
        )}
      </select>
      <${FilterInput} name="key" placeholder="Key id (all keys)" value=${keyId} onCommit=${setKeyId} />
    </div>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <${UsageFigures} rows=${shown.rows} cache=${!shown.tools} />
    <${StackedChart}
      x=${chart.x}
      stacks=${chart.stacks}
      format=${METRICS[metric].format}
      daily=${period === 'day'}
    />
    <${UsageTable} rows=${shown.rows} period=${period} by=${shown.by} tools=${shown.tools} />
    ${endpoint === TOOL_ENDPOINT && html`<${ToolCalls} keyId=${key} model=${model} />`}
  </section>`;
}
