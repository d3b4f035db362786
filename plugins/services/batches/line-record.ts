/**
 * The usage record of a line a vendor ran in its own batch: the counts the family's reader takes from
 * its answer (as from the same call alone), priced at the model's batch price, under the line's request
 * id (`<batch>:<line>`, as a line the gateway runs has), so writing it again after a crash writes nothing.
 */
import { recordCounts, type Usage } from '../../../core/kit/plugin';
import type { UsageRecord } from '../../../core/kit/tokens';
import type { VideoTask } from '../../../core/kit/task';

export interface LineCall {
  readonly index: number;
  readonly custom_id: string;
  readonly model: string;
  /** The API's endpoint id (`chat-completions`), as records of calls name it. */
  readonly endpoint: string;
  readonly status: number;
  readonly usage: Usage;
  readonly cost_micros: number | null;
}

export const lineRequestId = (batchId: string, index: number): string => `${batchId}:${index}`;

export function lineRecord(task: VideoTask, call: LineCall, now: number): UsageRecord {
  const { usage } = call;
  return {
    id: lineRequestId(task.id, call.index),
    key_id: task.key_id,
    team_id: task.team_id,
    model: call.model,
    upstream: task.upstream,
    endpoint: call.endpoint,
    status: call.status,
    stream: false,
    ...recordCounts(usage),
    cost_micros: call.cost_micros,
    batch_id: task.id,
    custom_id: call.custom_id,
    estimated: usage.estimated,
    outcome: call.status === 200 ? 'ok' : 'vendor_error',
    latency_ms: now - task.created_at,
    created_at: new Date(now).toISOString(),
  };
}
