/** A budget subject's spend read from the usage store: its records' summed cost since a period's start. */
import type { UsageStore, UsageSummaryQuery } from '../stores/usage-store';
import type { BudgetKind } from './budget-ledger';
import type { SpentSince } from './memory-budget-ledger';

/** The summary that sums one subject's records. */
const QUERY: Record<BudgetKind, (id: string) => UsageSummaryQuery> = {
  key: (id) => ({ group_by: ['key'], key_ids: [id] }),
  team: (id) => ({ group_by: ['team'], team_ids: [id] }),
};

export function spentFromUsage(usage: Pick<UsageStore, 'summary'>): SpentSince {
  return async (kind, id, from) => {
    const rows = await usage.summary({ ...QUERY[kind](id), from });
    return rows.reduce((sum, row) => sum + row.cost_micros, 0);
  };
}
