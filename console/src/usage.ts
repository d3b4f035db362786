/** Usage: requests, tokens or cost over time stacked by model, from the roll-ups; a table and CSV below. */
import { html } from 'htm/preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, type SummaryRow } from './api';
import { StackedChart, type Stack } from './chart';
import { csv, download, money } from './format';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
type Period = 'hour' | 'day';
type Metric = 'requests' | 'tokens' | 'cost';

const METRICS: Record<Metric, { of: (r: SummaryRow) => number; format: (v: number) => string }> = {
  requests: { of: (r) => r.requests, format: (v) => v.toLocaleString('en-US') },
  tokens: { of: (r) => r.input_tokens + r.output_tokens, format: (v) => v.toLocaleString('en-US') },
  cost: { of: (r) => r.cost_micros, format: money },
};

/** `[from, to)` ending with the current hour (or day), both on the hour as the API requires. */
function range(period: Period, days: number): { from: number; to: number } {
  const unit = period === 'hour' ? HOUR : DAY;
  const to = Math.floor(Date.now() / unit) * unit + unit;
  return { from: to - days * DAY, to };
}

function summaryPath(period: Period, keyId: string, from: number, to: number): string {
  const params = new URLSearchParams({
    group_by: `${keyId ? 'key,' : ''}model,${period}`,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
  });
  return `/admin/usage/summary?${params.toString()}`;
}

/** Every bucket of the range (empty ones as zero) and one stack per model. */
function stacksOf(rows: SummaryRow[], metric: Metric, from: number, to: number, unit: number) {
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

export function UsageView() {
  const [period, setPeriod] = useState<Period>('hour');
  const [days, setDays] = useState(1);
  const [keyId, setKeyId] = useState('');
  const [metric, setMetric] = useState<Metric>('requests');
  const [rows, setRows] = useState<SummaryRow[]>([]);
  const [error, setError] = useState('');
  const { from, to } = useMemo(() => range(period, days), [period, days]);

  useEffect(() => {
    let live = true;
    const key = keyId.trim();
    api<{ data: SummaryRow[] }>('GET', summaryPath(period, key, from, to))
      .then((r) => live && (setRows(key ? r.data.filter((row) => row.key_id === key) : r.data), setError('')))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [period, keyId, from, to]);

  const unit = period === 'hour' ? HOUR : DAY;
  const chart = useMemo(() => stacksOf(rows, metric, from, to, unit), [rows, metric, from, to, unit]);
  const value = (setter: (v: string) => void) => (e: Event) => setter((e.target as HTMLInputElement).value);

  return html`<section>
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
      <select
        name="range"
        aria-label="Range"
        value=${String(days)}
        onChange=${value((v) => setDays(Number(v)))}
      >
        <option value="1">last 24 hours</option>
        <option value="7">last 7 days</option>
        <option value="30">last 30 days</option>
      </select>
      <input name="key" placeholder="Key id (all keys)" value=${keyId} onChange=${value(setKeyId)} />
    </div>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <${StackedChart} x=${chart.x} stacks=${chart.stacks} format=${METRICS[metric].format} />
    <${UsageTable} rows=${rows} byKey=${Boolean(keyId.trim())} />
  </section>`;
}

function UsageTable(props: { rows: SummaryRow[]; byKey: boolean }) {
  const header = [
    'period',
    ...(props.byKey ? ['key_id'] : []),
    'model',
    'requests',
    'input_tokens',
    'output_tokens',
    'cost',
    'cost_unknown_requests',
  ];
  const cells = (r: SummaryRow) => [
    r.period ?? '',
    ...(props.byKey ? [r.key_id ?? ''] : []),
    r.model ?? '',
    r.requests,
    r.input_tokens,
    r.output_tokens,
    money(r.cost_micros).replace(/,/g, ''),
    r.cost_unknown_requests,
  ];
  const exportCsv = () => download('usage.csv', csv([header, ...props.rows.map(cells)]));
  return html`<div class="toolbar">
      <h2>Totals</h2>
      <button type="button" disabled=${props.rows.length === 0} onClick=${exportCsv}>Export CSV</button>
    </div>
    <table class="usage">
      <thead>
        <tr>
          ${header.map((h) => html`<th>${h.replace(/_/g, ' ')}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${
          props.rows.length === 0 &&
          html`<tr>
            <td colspan=${header.length} class="empty">No usage in this range.</td>
          </tr>`
        }
        ${props.rows.map(
          (r) =>
            html`<tr>
              ${cells(r).map((c) => html`<td>${c}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>`;
}
