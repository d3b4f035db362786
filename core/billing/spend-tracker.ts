/**
 * Each budgeted key's spend in its current period, in memory: read once from the usage store (a summary
 * grouped by key, from the period's start) when the key is first used, then kept up to date from the
 * records as they are written (usage-metering for calls, the video biller for tasks) — no query per
 * request. Beside it, the estimated cost of the key's calls under way (holds), so that calls admitted at
 * once cannot together spend more than the budget plus one call's cost.
 *
 * Single instance: each gateway counts the records it writes itself. Gateways sharing a store each see
 * what they spent plus what the store held when they first read it; a shared budget (in Redis) is a
 * later issue.
 */
import type { KeyBudget } from '../stores/key-store';
import type { UsageRecord, UsageStore } from '../stores/usage-store';
import { token } from '../base/token';

/** One key's spend in one period. Holds stay with the key across a change of period. */
export interface KeySpend {
  period: KeyBudget['period'];
  /** Epoch ms of the period's start (0 for `total`). */
  periodStart: number;
  /** Cost of the key's records in the period, in micro-units. */
  spent: number;
  /** Estimated cost of the key's calls admitted and not yet finished, in micro-units. */
  held: number;
  /** Set while the spend is being read from the store. */
  seeding: Promise<void> | undefined;
}

/** The start of the calendar month (UTC) holding `now`, in epoch ms. */
export function monthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The start of the next calendar month (UTC) after `now`, in epoch ms. */
export function nextMonthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

const periodStartOf = (period: KeyBudget['period'], now: number): number =>
  period === 'month' ? monthStart(now) : 0;

/** A video task of the key still under way, and what it holds (for holds a restart must restore). */
export interface OpenTask {
  readonly id: string;
  readonly micros: number;
}

export class SpendTracker {
  private readonly keys = new Map<string, KeySpend>();
  /** Holds of video tasks under way, by task id: they outlive the submit call, until the task ends. */
  private readonly tasks = new Map<string, { spend: KeySpend; micros: number }>();
  /** Tasks that ended while some key's spend was being read: a read that lists one must not hold it. */
  private readonly endedWhileSeeding = new Set<string>();
  private seedings = 0;

  constructor(
    private readonly store: Pick<UsageStore, 'summary'>,
    private readonly clock: () => number = Date.now,
    /** The key's video tasks still under way, read with its spend: their holds outlive a restart. */
    private readonly openTasks?: (keyId: string) => Promise<readonly OpenTask[]>,
  ) {}

  /**
   * The key's spend for `period` as of now, read from the store on first use and again when a new
   * period (a new month, or a budget whose period changed) begins: a new period starts from its own
   * records, none for a month just begun.
   */
  async current(keyId: string, period: KeyBudget['period']): Promise<KeySpend> {
    const start = periodStartOf(period, this.clock());
    let spend = this.keys.get(keyId);
    if (!spend) {
      spend = { period, periodStart: start, spent: 0, held: 0, seeding: undefined };
      this.keys.set(keyId, spend);
      this.seed(keyId, spend);
    } else if (spend.period !== period || spend.periodStart !== start) {
      spend.period = period;
      spend.periodStart = start;
      spend.spent = 0;
      this.seed(keyId, spend);
    }
    // Concurrent first calls all wait for the one read; after it they check and hold one at a time.
    while (spend.seeding) await spend.seeding;
    return spend;
  }

  /**
   * A record was written: its cost counts for its key if the key is tracked and the record falls in the
   * key's period. Records of a key being read from the store meanwhile are counted too: the read may
   * count them as well, which errs towards refusing early, never towards overspending.
   */
  recorded(record: Pick<UsageRecord, 'key_id' | 'cost_micros' | 'created_at'>): void {
    if (record.key_id === null || record.cost_micros === null || record.cost_micros <= 0) return;
    const spend = this.keys.get(record.key_id);
    if (!spend) return; // not budgeted (yet): read from the store when it is first checked
    if (spend.periodStart > 0 && Date.parse(record.created_at) < spend.periodStart) return;
    spend.spent += record.cost_micros;
  }

  hold(spend: KeySpend, micros: number): void {
    spend.held += micros;
  }

  release(spend: KeySpend, micros: number): void {
    spend.held = Math.max(0, spend.held - micros);
  }

  /** Moves a submit's hold (already counted in `spend.held`) onto the task it created. */
  holdTask(taskId: string, spend: KeySpend, micros: number): void {
    this.tasks.set(taskId, { spend, micros });
  }

  /**
   * The task no longer needs work: billed (its record already counted by `recorded`), failed or
   * cancelled. Its hold is released; a task without one (no budget, or held by an earlier process) is
   * a no-op.
   */
  taskEnded(taskId: string): void {
    const held = this.tasks.get(taskId);
    if (!held) {
      if (this.seedings > 0) this.endedWhileSeeding.add(taskId);
      return;
    }
    this.tasks.delete(taskId);
    this.release(held.spend, held.micros);
  }

  private seed(keyId: string, spend: KeySpend): void {
    const from = spend.periodStart;
    this.seedings++;
    const seeding = Promise.all([
      this.store.summary({ group_by: ['key'], key_ids: [keyId], from: from > 0 ? from : undefined }),
      this.openTasks?.(keyId) ?? [],
    ])
      .then(([rows, open]) => {
        if (spend.periodStart !== from) return; // a newer period began meanwhile: its own read counts
        spend.spent += rows.find((r) => r.key_id === keyId)?.cost_micros ?? 0;
        for (const task of open) {
          if (this.tasks.has(task.id) || this.endedWhileSeeding.has(task.id)) continue;
          this.hold(spend, task.micros);
          this.holdTask(task.id, spend, task.micros);
        }
      })
      .catch((e: unknown) => {
        // Forgotten, so the next call reads again; this one fails.
        if (this.keys.get(keyId) === spend && spend.periodStart === from) this.keys.delete(keyId);
        throw e;
      })
      .finally(() => {
        if (spend.seeding === seeding) spend.seeding = undefined;
        if (--this.seedings === 0) this.endedWhileSeeding.clear();
      });
    spend.seeding = seeding;
  }
}

/** Budgeted keys' spend: usage-metering and the video biller report each record they write to it. */
export const SpendTrackerToken = token<SpendTracker>('SpendTracker');
