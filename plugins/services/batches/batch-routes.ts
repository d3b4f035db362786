/**
 * OpenAI's batches API: create a batch from an uploaded file, read it, list them, cancel it. A batch is
 * its key's alone: for any other key it does not exist (404). Creating one stores a task of kind `batch`,
 * which the poller then runs on whichever instance takes it.
 */
import type { JsonObject } from '../../../core/kit/json';
import { Errors } from '../../../core/kit/plugin';
import type { FileStore, ServiceEndpoint, ServiceExchange } from '../../../core/kit/service';
import { isTerminal } from '../../../core/kit/task';
import { BatchErrors } from './batch-errors';
import { batchObject, batchStatus } from './batch-object';
import { BATCH_KIND, batchOf } from './batch-work';
import { ownBatch } from './own-batch';
import { storeBatch, type NewBatchParts } from './new-batch';
import { ownFile } from './file-routes';
import { newBatchId } from './ids';
import { BATCH_ENDPOINTS, fileLines, readInputLines } from './input-lines';
import { pageQuery } from './page-query';
import { listOf, sendJson } from './replies';

export interface BatchRoutesParts extends NewBatchParts {
  readonly files: FileStore;
}

/** OpenAI's limits on `metadata`: 16 pairs, keys up to 64 characters, values up to 512. */
const MAX_METADATA = 16;

export function batchRoutes(parts: BatchRoutesParts): ServiceEndpoint[] {
  const { tasks } = parts;
  return [
    { id: 'batches', method: 'POST', path: '/v1/batches', handle: (exchange) => create(parts, exchange) },
    { id: 'batches', method: 'GET', path: '/v1/batches', handle: (exchange) => list(parts, exchange) },
    {
      id: 'batches',
      method: 'GET',
      path: '/v1/batches/:id',
      handle: async (exchange) =>
        sendJson(exchange, 200, batchObject(await ownBatch(tasks, exchange, 'openai'))),
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
  return Object.fromEntries(entries);
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
  const lines = readInputLines(content, parts.catalogue, ctx, fileLines(parts.options.max_lines));
  if (lines[0]!.url !== asked.endpoint)
    throw Errors.invalidField('endpoint', `the url of the file's requests (${lines[0]!.url})`);
  const task = await storeBatch(parts, ctx, {
    id: newBatchId(),
    api: 'openai',
    endpoint: asked.endpoint,
    input_file_id: file.id,
    metadata: asked.metadata,
    lines,
    where: fileLines(0).where,
  });
  sendJson(exchange, 200, batchObject(task));
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
  const own = page.filter((task) => task.key_id === key_id && batchOf(task).api === 'openai');
  sendJson(exchange, 200, listOf(own.slice(0, limit).map(batchObject), own.length > limit));
}

async function cancel(parts: BatchRoutesParts, exchange: ServiceExchange): Promise<void> {
  const task = await ownBatch(parts.tasks, exchange, 'openai');
  if (isTerminal(task.status)) throw BatchErrors.notCancellable(task.id, batchStatus(task));
  const asked = await parts.tasks.requestCancel(task.id, parts.now());
  // Ended meanwhile: it is what it is now.
  const latest = asked ?? (await parts.tasks.get(task.id)) ?? task;
  if (!asked) throw BatchErrors.notCancellable(task.id, batchStatus(latest));
  sendJson(exchange, 200, batchObject(latest));
}
