/**
 * OpenAI's batches API: create a batch from an uploaded file, read it, list them, cancel it. A batch is
 * its key's alone: for any other key it does not exist (404). Creating one stores a task of kind `batch`,
 * which the poller then runs on whichever instance takes it.
 */
import type { JsonObject } from '../../../core/kit/json';
import { Errors } from '../../../core/kit/plugin';
import type { FileStore, Sealer, ServiceEndpoint, ServiceExchange } from '../../../core/kit/service';
import type { BudgetLedger, Catalogue, Pricing } from '../../../core/kit/stage';
import { holdBatch, lineEstimates } from './batch-hold';
import { isTerminal, type TaskStore, type VideoTask } from '../../../core/kit/task';
import { BatchErrors } from './batch-errors';
import { batchObject, batchStatus } from './batch-object';
import { asWork, BATCH_KIND, isBatch, type BatchWork } from './batch-work';
import { CREDENTIAL, presentedCredential } from './credential';
import { carriedHeaders } from './carried-headers';
import { batchMode } from './batch-mode';
import { ownFile } from './file-routes';
import { newBatchId } from './ids';
import { BATCH_ENDPOINTS, readInputLines } from './input-lines';
import type { BatchOptions } from './options';
import { pageQuery } from './page-query';
import { listOf, sendJson } from './replies';

export interface BatchRoutesParts {
  readonly options: BatchOptions;
  readonly files: FileStore;
  readonly tasks: TaskStore;
  readonly catalogue: Catalogue;
  readonly sealer: Sealer;
  readonly budgets: BudgetLedger;
  readonly pricing: Pricing;
  readonly now: () => number;
}

/** OpenAI's limits on `metadata`: 16 pairs, keys up to 64 characters, values up to 512. */
const MAX_METADATA = 16;

/** The caller's own batch, or 404. */
async function ownBatch(tasks: TaskStore, exchange: ServiceExchange): Promise<VideoTask> {
  const id = exchange.ctx.params.id ?? '';
  const task = await tasks.get(id);
  if (!task || !isBatch(task) || task.key_id !== (exchange.ctx.key?.id ?? null))
    throw BatchErrors.batchNotFound(id);
  return task;
}

export function batchRoutes(parts: BatchRoutesParts): ServiceEndpoint[] {
  const { tasks } = parts;
  return [
    { id: 'batches', method: 'POST', path: '/v1/batches', handle: (exchange) => create(parts, exchange) },
    { id: 'batches', method: 'GET', path: '/v1/batches', handle: (exchange) => list(parts, exchange) },
    {
      id: 'batches',
      method: 'GET',
      path: '/v1/batches/:id',
      handle: async (exchange) => sendJson(exchange, 200, batchObject(await ownBatch(tasks, exchange))),
    },
    {
      id: 'batches',
      method: 'POST',
      path: '/v1/batches/:id/cancel',
      handle: (exchange) => cancel(parts, exchange),
    },
  ];
}

interface CreateBody {
  readonly input_file_id: string;
  readonly endpoint: string;
  readonly metadata: Record<string, string> | null;
}

function createBody(body: JsonObject): CreateBody {
  const { input_file_id, endpoint, completion_window, metadata } = body;
  if (typeof input_file_id !== 'string' || input_file_id === '')
    throw Errors.invalidField('input_file_id', 'a file id');
  if (typeof endpoint !== 'string' || !BATCH_ENDPOINTS.includes(endpoint))
    throw Errors.invalidField('endpoint', `one of ${BATCH_ENDPOINTS.join(', ')}`);
  if (completion_window !== '24h') throw Errors.invalidField('completion_window', "'24h'");
  return { input_file_id, endpoint, metadata: checkedMetadata(metadata) };
}

function checkedMetadata(metadata: unknown): Record<string, string> | null {
  if (metadata === undefined || metadata === null) return null;
  const expected = `an object of at most ${MAX_METADATA} string values`;
  if (typeof metadata !== 'object' || Array.isArray(metadata))
    throw Errors.invalidField('metadata', expected);
  const entries = Object.entries(metadata);
  const fits = ([k, v]: [string, unknown]) => typeof v === 'string' && k.length <= 64 && v.length <= 512;
  if (entries.length > MAX_METADATA || !entries.every(fits)) throw Errors.invalidField('metadata', expected);
  return Object.fromEntries(entries) as Record<string, string>;
}

async function create(parts: BatchRoutesParts, exchange: ServiceExchange): Promise<void> {
  const { ctx } = exchange;
  const asked = createBody(await ctx.json());
  const now = parts.now();
  const file = await ownFile(parts.files, exchange, asked.input_file_id, now);
  if (file.purpose !== 'batch')
    throw Errors.invalidField('input_file_id', "a file uploaded with purpose 'batch'");
  const content = await parts.files.content(file.id, now);
  if (!content) throw BatchErrors.fileNotFound(file.id);
  // Checked again: the key's models, or the configuration, may have changed since the upload.
  const lines = readInputLines(content, parts.catalogue, ctx, parts.options.max_lines);
  if (lines[0]!.url !== asked.endpoint)
    throw Errors.invalidField('endpoint', `the url of the file's requests (${lines[0]!.url})`);
  const first = parts.catalogue.resolve(parts.catalogue.endpointAt(asked.endpoint)!, lines[0]!.model);
  const mode = batchMode(first, asked.endpoint, lines, parts.catalogue);
  const work: BatchWork = {
    api: 'openai',
    mode,
    endpoint: asked.endpoint,
    input_file_id: file.id,
    completion_window: '24h',
    metadata: asked.metadata,
    total: lines.length,
    sent: 0,
    retry: [],
    completed: 0,
    failed: 0,
    credential: parts.sealer.seal(CREDENTIAL, presentedCredential(ctx.headers) ?? null),
    headers: carriedHeaders(ctx.headers),
    submitting: false,
    cancel_sent: false,
    expires_at: now + parts.options.completion_window,
    finalizing_at: null,
    output_file_id: null,
    error_file_id: null,
  };
  const task = newBatchTask(newBatchId(), ctx.requestId, now, work, {
    key_id: ctx.key?.id ?? null,
    team_id: ctx.team?.id,
    model: first.spec.id,
    upstream: first.upstream.name,
    upstream_model: first.upstreamModel,
  });
  const estimates = lineEstimates(lines, parts);
  const hold = await holdBatch(
    parts.budgets,
    ctx,
    estimates.reduce((a, b) => a + b, 0),
  );
  try {
    await parts.tasks.insert(task, now);
  } catch (e) {
    if (hold) void parts.budgets.release(hold);
    throw e;
  }
  if (hold) void parts.budgets.holdTask(task.id, hold);
  sendJson(exchange, 200, batchObject(task));
}

interface BatchOwner {
  readonly key_id: string | null;
  readonly team_id: string | undefined;
  readonly model: string;
  readonly upstream: string;
  readonly upstream_model: string;
}

function newBatchTask(
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
    upstream_task_id: null,
    status: 'queued',
    history: [{ status: 'queued', at: now }],
    video_url: null,
    error: null,
    usage: null,
    created_at: now,
    updated_at: now,
    finished_at: null,
    // The poller's own deadline is the batch's expiry: the worker ends the batch then, files and all.
    deadline_at: work.expires_at,
    next_poll_at: now,
    polls: 0,
    poll_errors: 0,
    lease: null,
    billed: false,
    cost_micros: null,
    idempotency: null,
  };
}

async function list(parts: BatchRoutesParts, exchange: ServiceExchange): Promise<void> {
  const { limit, after } = pageQuery(exchange.req, 20, 100);
  const key_id = exchange.ctx.key?.id ?? null;
  const from = after === undefined ? undefined : await parts.tasks.get(after);
  const page = await parts.tasks.page({
    kind: BATCH_KIND,
    key_id: key_id ?? undefined,
    limit: limit + 1,
    ...(from ? { after: { created_at: from.created_at, id: from.id } } : {}),
  });
  const own = page.filter((task) => task.key_id === key_id);
  sendJson(exchange, 200, listOf(own.slice(0, limit).map(batchObject), own.length > limit));
}

async function cancel(parts: BatchRoutesParts, exchange: ServiceExchange): Promise<void> {
  const task = await ownBatch(parts.tasks, exchange);
  if (isTerminal(task.status)) throw BatchErrors.notCancellable(task.id, batchStatus(task));
  const asked = await parts.tasks.requestCancel(task.id, parts.now());
  // Ended meanwhile: it is what it is now.
  const latest = asked ?? (await parts.tasks.get(task.id)) ?? task;
  if (!asked) throw BatchErrors.notCancellable(task.id, batchStatus(latest));
  sendJson(exchange, 200, batchObject(latest));
}
