/** Usage totals worked out straight from raw records: the oracle that summary tests compare against. */
import { emptyTotals } from '../../core/stores/usage-rollup-level';
import type { UsageRecord, UsageSummaryRow } from '../../core/stores/usage-store';

/** The group's fields of a record (`{key_id}`, `{model, period}`, …); records with equal fields add up. */
export type GroupOf = (
  r: UsageRecord,
) => Partial<Pick<UsageSummaryRow, 'key_id' | 'model' | 'endpoint' | 'period'>>;

/** One row per group, in the order groups first appear, summed as the summary defines its columns. */
export function totalsBy(records: readonly UsageRecord[], groupOf: GroupOf): UsageSummaryRow[] {
  const rows = new Map<string, UsageSummaryRow>();
  for (const r of records) {
    const fields = groupOf(r);
    const id = JSON.stringify(fields);
    const row = rows.get(id) ?? { ...fields, ...emptyTotals() };
    rows.set(id, row);
    row.requests++;
    row.input_tokens += r.prompt_tokens;
    row.output_tokens += r.completion_tokens;
    if (r.cost_micros === null) row.cost_unknown_requests++;
    else row.cost_micros += r.cost_micros;
    if (typeof r.saved_micros === 'number') row.saved_micros += r.saved_micros;
    if (r.batch_id !== undefined) {
      row.batch_requests++;
      row.batch_cost_micros += r.cost_micros ?? 0;
    }
  }
  return [...rows.values()];
}
