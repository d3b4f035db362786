/**
 * Bills a succeeded task: one usage record, unique by task id (UsageStore.recordOnce), so billing again
 * after a crash between the record and the task's `billed` flag writes nothing twice.
 */
import type { UsageRecord, UsageStore } from '../stores/usage-store';
import type { Pricing } from '../billing/pricing';
import type { BudgetLedger } from '../billing/budget-ledger';
import type { TaskUsage, VideoTask } from '../stores/video-task';

export const VIDEO_ENDPOINT = 'video';

export function usageRecordOf(task: VideoTask, pricing: Pricing): UsageRecord {
  // Upstreams that report no duration or resolution are billed what the client asked for.
  const usage: TaskUsage = {
    ...task.usage,
    video_seconds: task.usage?.video_seconds ?? task.params.duration_s,
    resolution: task.usage?.resolution ?? task.params.resolution,
  };
  const tokens = usage.tokens ?? 0;
  return {
    id: task.id,
    key_id: task.key_id,
    ...(task.team_id !== undefined ? { team_id: task.team_id } : {}),
    model: task.model,
    upstream: task.upstream,
    endpoint: VIDEO_ENDPOINT,
    status: 200,
    stream: false,
    // Video upstreams count no input tokens; token-billed ones report output tokens (docs/upstreams.md#videob).
    prompt_tokens: 0,
    completion_tokens: tokens,
    total_tokens: tokens,
    video_seconds: usage.video_seconds,
    resolution: usage.resolution,
    cost_micros: pricing.taskCost(task.model, task.params, usage),
    estimated: false,
    outcome: 'ok',
    latency_ms: (task.finished_at ?? task.updated_at) - task.created_at,
    created_at: new Date(task.finished_at ?? task.updated_at).toISOString(),
  };
}

export class Biller {
  constructor(
    private readonly usage: UsageStore,
    /** The prices of the running configuration (a reload may change them). */
    private readonly pricing: () => Pricing,
    /** Told of each record this biller writes, so budgets count it. */
    private readonly budgets?: BudgetLedger,
    /** Told of each record this biller writes, for the metrics (tokens and cost by model). */
    private readonly onBilled?: (record: UsageRecord) => void,
  ) {}

  /**
   * Writes the task's usage record unless it exists; `wrote` when this call wrote it. The record is
   * returned either way: computed from the stored task, it is the one a first call wrote.
   */
  async bill(task: VideoTask): Promise<{ record: UsageRecord; wrote: boolean }> {
    const record = usageRecordOf(task, this.pricing());
    const wrote = await this.usage.recordOnce(record);
    if (wrote) {
      void this.budgets?.recorded(record);
      this.onBilled?.(record);
    }
    return { record, wrote };
  }
}
