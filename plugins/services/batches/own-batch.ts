/**
 * The caller's own batch of one batch API, or 404: another key's batch, or one made through the other
 * API (an OpenAI batch is no Anthropic message batch), does not exist for it.
 */
import type { ServiceExchange } from '../../../core/kit/service';
import type { TaskStore, VideoTask } from '../../../core/kit/task';
import { BatchErrors } from './batch-errors';
import { batchOf, isBatch, type BatchApi } from './batch-work';

export async function ownBatch(
  tasks: TaskStore,
  exchange: ServiceExchange,
  api: BatchApi,
): Promise<VideoTask> {
  const id = exchange.ctx.params.id ?? '';
  const task = await tasks.get(id);
  const own = task && isBatch(task) && task.key_id === (exchange.ctx.key?.id ?? null);
  if (!own || batchOf(task).api !== api) throw BatchErrors.batchNotFound(id);
  return task;
}
