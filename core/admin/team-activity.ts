/**
 * What the team listing shows beside each team's settings: how many keys it has and what it has spent,
 * read from the usage roll-ups for all the listed teams at once (two summaries grouped by team). Spend is
 * counted over the team's budget period, as for keys (key-activity.ts): this calendar month for a
 * monthly budget, else the team's whole life. Usage records carry the team a call was made under, so a
 * key moved to another team leaves its past spend where it was.
 */
import { monthStart } from '../billing/budget-period';
import type { TeamRecord } from '../stores/team-store';
import type { UsageStore } from '../stores/usage-store';
import { publicTeam } from './public-team';
import type { TeamWithActivity } from './wire';

export async function teamsWithActivity(
  usage: UsageStore,
  records: readonly TeamRecord[],
  keyCounts: ReadonlyMap<string, number>,
  now: number,
): Promise<TeamWithActivity[]> {
  const monthly = records.filter((r) => r.budget?.period === 'month').map((r) => r.id);
  const lifelong = records.map((r) => r.id).filter((id) => !monthly.includes(id));
  const [lifeRows, monthRows] = await Promise.all([
    lifelong.length ? usage.summary({ group_by: ['team'], team_ids: lifelong }) : [],
    monthly.length ? usage.summary({ group_by: ['team'], team_ids: monthly, from: monthStart(now) }) : [],
  ]);
  const spend = new Map([...lifeRows, ...monthRows].map((row) => [row.team_id, row]));
  return records.map((record) => ({
    ...publicTeam(record),
    key_count: keyCounts.get(record.id) ?? 0,
    spent_micros: spend.get(record.id)?.cost_micros ?? 0,
    spent_unknown_requests: spend.get(record.id)?.cost_unknown_requests ?? 0,
  }));
}
