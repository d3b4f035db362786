/**
 * The usage view's table: the range's totals per model or per endpoint, and the CSV behind the chart.
 * Tool calls (the MCP endpoint's) have a model that is a tool and no tokens or cache: shown alone, their
 * table names each tool and its server and leaves those columns out (the CSV keeps every column).
 */
import { html } from 'htm/preact';
import { useMemo } from 'preact/hooks';
import type { UsageSummaryRow } from '../../core/admin/wire';
import { csv, download, money } from './format';
import { toolParts } from './tool-calls';

/** What the chart stacks and the table totals by: the field of a summary row that names the group. */
export type StackBy = 'model' | 'endpoint';

/**
 * Columns added later come last (what the cache saved, then the batches' share), so a CSV read by column
 * position keeps its earlier columns.
 */
const COLUMNS = [
  'requests',
  'input_tokens',
  'output_tokens',
  'cost',
  'cost_unknown_requests',
  'saved_by_cache',
  'batch_requests',
  'batch_cost',
];

/** The columns that mean something for tool calls, which carry no tokens and are never cached. */
const TOOL_COLUMNS = ['requests', 'cost', 'cost_unknown_requests'];

/** The figures of a row, as the table and the CSV show them (money exact, without thousands commas). */
const figures = (r: UsageSummaryRow) => [
  r.requests,
  r.input_tokens,
  r.output_tokens,
  money(r.cost_micros).replace(/,/g, ''),
  r.cost_unknown_requests,
  money(r.saved_micros).replace(/,/g, ''),
  r.batch_requests,
  money(r.batch_cost_micros).replace(/,/g, ''),
];

/** The figures of `columns`, of those of the row. */
const figuresOf = (r: UsageSummaryRow, columns: readonly string[]) => {
  const all = figures(r);
  return columns.map((c) => all[COLUMNS.indexOf(c)]);
};

const zero = () => ({
  requests: 0,
  input_tokens: 0,
  output_tokens: 0,
  cost_micros: 0,
  cost_unknown_requests: 0,
  saved_micros: 0,
  batch_requests: 0,
  batch_cost_micros: 0,
});

/** A total row: a label and the sums of its rows. */
interface Total extends UsageSummaryRow {
  label: string;
}

/** Sums rows per group, and over all of them: the table shows the range's totals, not every bucket. */
function totalsBy(
  rows: readonly UsageSummaryRow[],
  by: StackBy,
): {
  groups: Total[];
  all: Total;
} {
  const byGroup = new Map<string, Total>();
  const all: Total = { label: `all ${by}s`, ...zero() };
  for (const r of rows) {
    const label = r[by] ?? '';
    const sum = byGroup.get(label) ?? { label, ...zero() };
    byGroup.set(label, sum);
    for (const target of [sum, all]) {
      target.requests += r.requests;
      target.input_tokens += r.input_tokens;
      target.output_tokens += r.output_tokens;
      target.cost_micros += r.cost_micros;
      target.cost_unknown_requests += r.cost_unknown_requests;
      target.saved_micros += r.saved_micros;
      target.batch_requests += r.batch_requests;
      target.batch_cost_micros += r.batch_cost_micros;
    }
  }
  const groups = [...byGroup.values()].sort((a, b) => (a.label < b.label ? -1 : 1));
  return { groups, all };
}

/**
 * The range's totals by model or endpoint (a few rows, however long the range), and the CSV of every
 * period and group behind the chart. `tools`: the rows are tool calls alone.
 */
export function UsageTable(props: {
  rows: readonly UsageSummaryRow[];
  period: 'hour' | 'day';
  by: StackBy;
  tools: boolean;
}) {
  const { by, tools } = props;
  const { groups, all } = useMemo(() => totalsBy(props.rows, by), [props.rows, by]);
  const columns = tools ? TOOL_COLUMNS : COLUMNS;
  // By model, tool calls are totalled by tool: each named as its server names it, beside the server.
  const byTool = tools && by === 'model';
  const heads = byTool ? ['tool', 'server'] : [by];
  const names = (r: Total, total: boolean) => {
    if (!byTool) return html`<td>${r.label}</td>`;
    if (total)
      return html`<td>all tools</td>
        <td></td>`;
    const { tool, server } = toolParts(r.label);
    return html`<td>${tool}</td>
      <td>${server}</td>`;
  };
  const row = (r: Total, total = false) =>
    html`<tr class=${total ? 'total' : ''} data-group=${total ? undefined : r.label}>
      ${names(r, total)} ${figuresOf(r, columns).map((c) => html`<td>${c}</td>`)}
    </tr>`;
  const exportCsv = () =>
    download(
      by === 'model' ? `usage-per-${props.period}.csv` : `usage-by-${by}-per-${props.period}.csv`,
      csv([
        ['period', by, ...COLUMNS],
        ...props.rows.map((r) => [r.period ?? '', r[by] ?? '', ...figures(r)]),
      ]),
    );
  return html`<div class="toolbar">
      <h2>Totals by ${byTool ? 'tool' : by}</h2>
      <button type="button" disabled=${props.rows.length === 0} onClick=${exportCsv}>
        Export CSV (per ${props.period})
      </button>
    </div>
    <table class="usage">
      <thead>
        <tr>
          ${[...heads, ...columns].map((h) => html`<th>${h.replace(/_/g, ' ')}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${
          groups.length === 0 &&
          html`<tr>
            <td colspan=${heads.length + columns.length} class="empty">No usage in this range.</td>
          </tr>`
        }
        ${groups.map((r) => row(r))} ${groups.length > 1 && row(all, true)}
      </tbody>
    </table>`;
}
