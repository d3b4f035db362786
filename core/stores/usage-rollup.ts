/**
 * Usage totals per (hour, key, model), kept as records are written so a summary never reads the records
 * themselves: a day, or no period at all, folds the hourly buckets. The buckets are indexed by key, so a
 * summary of some keys (a page of the console's key list, a budget's first check) reads only theirs.
 * The embedded store fills one at open from its files and then from each record it writes.
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

/** One key's buckets (`hour \n model` → bucket) and its latest record's time. */
interface KeyBuckets {
  readonly buckets: Map<string, Bucket>;
  lastUsedAt: string;
}

/** Map keys for the key index: a call made without a key has its own entry. */
const NO_KEY = '\u0000none';
const keyEntry = (keyId: string | null): string => (keyId === null ? NO_KEY : keyId);

const emptyTotals = () => ({
  requests: 0,
  input_tokens: 0,
  output_tokens: 0,
  cost_micros: 0,
  cost_unknown_requests: 0,
});

export class UsageRollup {
  private readonly keys = new Map<string, KeyBuckets>();

  add(record: UsageRecord): void {
    const at = Date.parse(record.created_at);
    if (Number.isNaN(at)) return;
    const hour = at - (((at % HOUR_MS) + HOUR_MS) % HOUR_MS);
    const entry = keyEntry(record.key_id);
    let key = this.keys.get(entry);
    if (!key) {
      key = { buckets: new Map(), lastUsedAt: record.created_at };
      this.keys.set(entry, key);
    }
    // Records are written as `toISOString`, so string order is time order.
    if (record.created_at > key.lastUsedAt) key.lastUsedAt = record.created_at;
    const id = `${hour}\n${record.model}`;
    let bucket = key.buckets.get(id);
    if (!bucket) {
      bucket = { hour, key_id: record.key_id, model: record.model, ...emptyTotals() };
      key.buckets.set(id, bucket);
    }
    bucket.requests += 1;
    bucket.input_tokens += record.prompt_tokens;
    bucket.output_tokens += record.completion_tokens;
    if (typeof record.cost_micros === 'number') bucket.cost_micros += record.cost_micros;
    else bucket.cost_unknown_requests += 1;
  }

  /** The time of each key's latest record, for the keys that have one. */
  lastUsed(keyIds: readonly string[]): Map<string, string> {
    const found = new Map<string, string>();
    for (const id of keyIds) {
      const key = this.keys.get(id);
      if (key) found.set(id, key.lastUsedAt);
    }
    return found;
  }

  /** Folds the hourly buckets in [from, to) of the chosen keys and models into the query's groups. */
  summary(query: UsageSummaryQuery): UsageSummaryRow[] {
    const by = new Set<SummaryDimension>(query.group_by);
    const periodMs = by.has('day') ? DAY_MS : by.has('hour') ? HOUR_MS : undefined;
    const models = query.models ? new Set(query.models) : undefined;
    const groups = new Map<string, UsageSummaryRow>();
    for (const b of this.bucketsOf(query.key_ids)) {
      if (query.from !== undefined && b.hour < query.from) continue;
      if (query.to !== undefined && b.hour >= query.to) continue;
      if (models && !models.has(b.model)) continue;
      const period = periodMs === undefined ? undefined : b.hour - (b.hour % periodMs);
      const id = `${period ?? ''}\n${by.has('key') ? keyEntry(b.key_id) : ''}\n${by.has('model') ? b.model : ''}`;
      let row = groups.get(id);
      if (!row) {
        row = {
          ...(by.has('key') ? { key_id: b.key_id } : {}),
          ...(by.has('model') ? { model: b.model } : {}),
          ...(period !== undefined ? { period: new Date(period).toISOString() } : {}),
          ...emptyTotals(),
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

  private *bucketsOf(keyIds: readonly string[] | undefined): Iterable<Bucket> {
    const keys = keyIds ? keyIds.map((id) => this.keys.get(id)) : this.keys.values();
    for (const key of keys) if (key) yield* key.buckets.values();
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
