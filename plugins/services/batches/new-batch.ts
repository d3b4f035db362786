/**
 * A new batch, whichever API created it: who runs it (batch-mode.ts), its state, its hold on the key's
 * and team's budgets (refused whole before anything is stored), and the task the poller will run.
 */
import type { GatewayContext } from '../../../core/kit/plugin';
import type { Sealer } from '../../../core/kit/service';
import type { BudgetLedger, Catalogue, Pricing } from '../../../core/kit/tokens';
import { newTaskState, type TaskStore, type VideoTask } from '../../../core/kit/task';
import { holdBatch, lineEstimates } from './batch-hold';
import { batchMode } from './batch-mode';
import { asWork, BATCH_KIND, type BatchApi, type BatchWork } from './batch-work';
import { carriedHeaders } from './carried-headers';
import { CREDENTIAL, presentedCredential } from './credential';
import type { InputLine } from './input-lines';
import type { BatchOptions } from './options';

export interface NewBatchParts {
  readonly options: BatchOptions;
  readonly tasks: TaskStore;
  readonly catalogue: Catalogue;
  readonly sealer: Sealer;
  readonly budgets: BudgetLedger;
  readonly pricing: Pricing;
  readonly now: () => number;
}

export interface NewBatch {
  readonly id: string;
  readonly api: BatchApi;
  readonly endpoint: string;
  readonly input_file_id: string;
  readonly metadata: Readonly<Record<string, string>> | null;
  /** The requests, already checked for the key. */
  readonly lines: readonly InputLine[];
  /** How a refusal names the `n`th request. */
  readonly where: (n: number) => string;
}

export async function storeBatch(
  parts: NewBatchParts,
  ctx: GatewayContext,
  asked: NewBatch,
): Promise<VideoTask> {
  const now = parts.now();
  const { catalogue } = parts;
  const { lines, endpoint } = asked;
  const first = catalogue.resolve(catalogue.endpointAt(endpoint)!, lines[0]!.model);
  const work: BatchWork = {
    api: asked.api,
    mode: batchMode(first, endpoint, lines, catalogue, asked.where),
    endpoint,
    input_file_id: asked.input_file_id,
    completion_window: '24h',
    metadata: asked.metadata,
    total: lines.length,
    sent: 0,
    retry: [],
    completed: 0,
    failed: 0,
    canceled: 0,
    expired: 0,
    credential: parts.sealer.seal(CREDENTIAL, presentedCredential(ctx.headers) ?? null),
    headers: carriedHeaders(ctx.headers),
    submitting: false,
    cancel_sent: false,
    expires_at: now + parts.options.completion_window,
    finalizing_at: null,
    output_file_id: null,
    error_file_id: null,
  };
  const task = batchTask(asked.id, ctx.requestId, now, work, {
    key_id: ctx.key?.id ?? null,
    team_id: ctx.team?.id,
    model: first.spec.id,
    upstream: first.upstream.name,
    upstream_model: first.upstreamModel,
  });
  const estimate = lineEstimates(lines, parts).reduce((a, b) => a + b, 0);
  const hold = await holdBatch(parts.budgets, ctx, estimate);
  try {
    await parts.tasks.insert({ ...task, held_micros: hold?.micros ?? 0 }, now);
  } catch (e) {
    if (hold) void parts.budgets.release(hold);
    throw e;
  }
  if (hold) void parts.budgets.holdTask(task.id, hold);
  return task;
}

interface BatchOwner {
  readonly key_id: string | null;
  readonly team_id: string | undefined;
  readonly model: string;
  readonly upstream: string;
  readonly upstream_model: string;
}

function batchTask(
  id: string,
  requestId: string,
  now: number,
  work: BatchWork,
  owner: BatchOwner,
): VideoTask {
  const { team_id, ...rest } = owner;
  return {
    id,
    kind: BATCH_KIND,
    work: asWork(work),
    ...rest,
    ...(team_id !== undefined ? { team_id } : {}),
    protocol: BATCH_KIND,
    request_id: requestId,
    params: {},
    ...newTaskState(now),
    // The poller's own deadline is the batch's expiry: the worker ends the batch then, files and all.
    deadline_at: work.expires_at,
    lease: null,
    idempotency: null,
  };
}
