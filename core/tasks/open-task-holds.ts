/**
 * What a key's or a team's tasks still under way hold against its budget, read from the task store
 * when its spend is first read (MemoryBudgetLedger), so a restart does not forget the holds of tasks it
 * left running: for a video task, the same estimate the budget stage held at submit
 * (TaskUpstream.estimate at the model's price); for a task of another kind (a batch), what its worker
 * says it still holds (`held_micros`).
 */
import type { Pricing } from '../billing/pricing';
import type { Catalogue } from '../routing/catalogue';
import type { BudgetKind } from '../billing/budget-ledger';
import type { OpenTask } from '../billing/memory-budget-ledger';
import { ANY_KIND, type TaskPageQuery, type TaskStore } from '../stores/task-store';
import { needsWork, type TaskStatus, type VideoTask } from '../stores/video-task';

/** Statuses of tasks that may still be billed (a succeeded one until its record is written). */
const OPEN: readonly TaskStatus[] = ['queued', 'running', 'succeeded'];
/** A key or team with more tasks under way than this is already far past any budget's edge. */
const MAX_OPEN = 1_000;
/** The task field naming each kind of budget's owner. */
const OWNER_FIELD: Record<BudgetKind, keyof TaskPageQuery & ('key_id' | 'team_id')> = {
  key: 'key_id',
  team: 'team_id',
};

/** What the estimate needs from the running configuration (a reload may change it). */
export interface HoldPrices {
  readonly catalogue: Catalogue;
  readonly pricing: Pricing;
}

export function openTaskHolds(
  tasks: TaskStore,
  running: () => HoldPrices,
): (kind: BudgetKind, id: string) => Promise<OpenTask[]> {
  const holdOf = (task: VideoTask): number => {
    if (task.kind !== undefined) return task.held_micros ?? 0; // its worker keeps what it still holds
    const { catalogue, pricing } = running();
    const target = catalogue.targetOn(task.model, task.upstream);
    const upstream = target?.upstream.plugin.tasks;
    if (!target || !upstream) return 0; // no longer configured: nothing to estimate it by
    return pricing.taskCost(task.model, task.params, upstream.estimate(task.params, target.spec)) ?? 0;
  };
  return async (kind, id) => {
    const pages = await Promise.all(
      OPEN.map((status) => tasks.page({ [OWNER_FIELD[kind]]: id, status, kind: ANY_KIND, limit: MAX_OPEN })),
    );
    return pages
      .flat()
      .filter(needsWork)
      .map((task) => ({ id: task.id, micros: holdOf(task) }))
      .filter((hold) => hold.micros > 0);
  };
}
