/**
 * What the key listing shows beside each key's settings: when it was last used and what it has spent,
 * read from the usage roll-ups for one page of keys at a time (two summaries and one last-used read,
 * whatever the page's size). Spend is counted over the key's budget period, as the budget stage counts
 * it: this calendar month for a monthly budget, else the key's whole life.
 */
import { monthStart } from '../billing/budget-period';
import type { KeyRecord } from '../stores/key-store';
import type { UsageStore } from '../stores/usage-store';
import { publicKey } from './public-key';
import type { KeyWithActivity } from './wire';

export async function withActivity(
  usage: UsageStore,
  records: readonly KeyRecord[],
  now: number,
): Promise<KeyWithActivity[]> {
  const ids = records.map((r) => r.id);
  const monthly = records.filter((r) => r.budget?.period === 'month').map((r) => r.id);
  const lifelong = ids.filter((id) => !monthly.includes(id));
  const [lastUsed, lifeRows, monthRows] = await Promise.all([
    usage.lastUsed(ids),
    lifelong.length ? usage.summary({ group_by: ['key'], key_ids: lifelong }) : [],
    monthly.length ? usage.summary({ group_by: ['key'], key_ids: monthly, from: monthStart(now) }) : [],
  ]);
  const spend = new Map([...lifeRows, ...monthRows].map((row) => [row.key_id, row]));
  return records.map((record) => ({
    ...publicKey(record, now),
    last_used_at: lastUsed.get(record.id) ?? null,
    spent_micros: spend.get(record.id)?.cost_micros ?? 0,
    spent_unknown_requests: spend.get(record.id)?.cost_unknown_requests ?? 0,
  }));
}
