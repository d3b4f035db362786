/**
 * Usage totals per (hour, key, model), kept as records are written so a summary never reads the records
 * themselves: a day, or no period at all, folds the hourly buckets. The embedded store fills one at open
 * from its files and then from each record it writes.
 */
import type { SummaryDimension, UsageRecord, UsageSummaryQuery, UsageSummaryRow } from './usage-store';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

interface Bucket {
  readonly hour: number;
  readonly key_id: string | null;
  readonly model: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost_micros: number;
  cost_unknown_requests: number;
}

export class UsageRollup {
  private readonly buckets = new Map<string, Bucket>();

  add(record: UsageRecord): void {
    const at = Date.parse(record.created_at);
    if (Number.isNaN(at)) return;
    const hour = at - (((at % HOUR_MS) + HOUR_MS) % HOUR_MS);
    const id = `${hour}\n${record.key_id === null ? '' : 'k' + record.key_id}\n${record.model}`;
    let bucket = this.buckets.get(id);
    if (!bucket) {
      bucket = {
        hour,
        key_id: record.key_id,
        model: record.model,
        requests: 0,
        input_tokens: 0,
        output_tokens: 0,
        cost_micros: 0,
        cost_unknown_requests: 0,
      };
      this.buckets.set(id, bucket);
    }
    bucket.requests += 1;
    bucket.input_tokens += record.prompt_tokens;
    bucket.output_tokens += record.completion_tokens;
    if (typeof record.cost_micros === 'number') bucket.cost_micros += record.cost_micros;
    else bucket.cost_unknown_requests += 1;
  }

  /** Folds the hourly buckets in [from, to) into the query's groups. */
  summary(query: UsageSummaryQuery): UsageSummaryRow[] {
    const by = new Set<SummaryDimension>(query.group_by);
    const periodMs = by.has('day') ? DAY_MS : by.has('hour') ? HOUR_MS : undefined;
    const groups = new Map<string, UsageSummaryRow>();
    for (const b of this.buckets.values()) {
      if (query.from !== undefined && b.hour < query.from) continue;
      if (query.to !== undefined && b.hour >= query.to) continue;
      const period = periodMs === undefined ? undefined : b.hour - (b.hour % periodMs);
      const id = `${period ?? ''}\n${by.has('key') ? (b.key_id === null ? '' : 'k' + b.key_id) : ''}\n${by.has('model') ? b.model : ''}`;
      let row = groups.get(id);
      if (!row) {
        row = {
          ...(by.has('key') ? { key_id: b.key_id } : {}),
          ...(by.has('model') ? { model: b.model } : {}),
          ...(period !== undefined ? { period: new Date(period).toISOString() } : {}),
          requests: 0,
          input_tokens: 0,
          output_tokens: 0,
          cost_micros: 0,
          cost_unknown_requests: 0,
        };
        groups.set(id, row);
      }
      row.requests += b.requests;
      row.input_tokens += b.input_tokens;
      row.output_tokens += b.output_tokens;
      row.cost_micros += b.cost_micros;
      row.cost_unknown_requests += b.cost_unknown_requests;
    }
    return sortSummary([...groups.values()]);
  }
}

const cmp = (a: string | null | undefined, b: string | null | undefined): number => {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1; // no key (a call made without one) first
  if (b === undefined || b === null) return 1;
  return a < b ? -1 : 1;
};

/** By period, then key, then model (ISO periods compare as strings; a record without a key first). */
export function sortSummary(rows: UsageSummaryRow[]): UsageSummaryRow[] {
  return rows.sort((a, b) => cmp(a.period, b.period) || cmp(a.key_id, b.key_id) || cmp(a.model, b.model));
}
