import { pageOf } from '../batch-runs/page';
import type { JsonAnswer } from '../call';
import type { Exchange, RouteHandler } from '../exchange';
import { newBatchId } from '../ids';
import { SimErrors } from '../sim-error';
import { ENDED, OpenAiBatch } from './batch';
import { batchObject } from './batch-object';
import { cannotCancel, noInputFile, noSuchBatch, notBatchFile } from './errors';
import { readInput } from './input';
import { parseBatchRequest } from './request';

/** The single-call answer of each endpoint a batch may name, by its path (`/v1/chat/completions`). */
export type BatchEndpoints = Readonly<Record<string, JsonAnswer>>;

// The vendor's page size: 20 unless asked, at most 100.
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** The batch `:batch_id` names, if this family issued it. @throws SimError 404 otherwise. */
function found(ex: Exchange): OpenAiBatch {
  const id = ex.params.batch_id ?? '';
  const batch = ex.batches.openAi.get(ex.family.name, id);
  if (!batch) throw noSuchBatch(id);
  return batch;
}

/** The Batch object as of now, its due lines answered and, once it ended, its files written. */
function current(ex: Exchange, batch: OpenAiBatch): Record<string, unknown> {
  const now = ex.batches.now();
  batch.settle(now, ex.batches.files);
  return batchObject(batch, now);
}

/** `POST /v1/batches`: the body, then its input file; the file's lines are validated as the batch's time runs. */
function create(ex: Exchange, endpoints: BatchEndpoints): void {
  const req = parseBatchRequest(ex.body, Object.keys(endpoints));
  const file = ex.batches.files.get(ex.family.name, req.inputFileId);
  if (!file) throw noInputFile(req.inputFileId);
  if (file.purpose !== 'batch') throw notBatchFile(file.id, file.purpose);
  const { family, promptCache } = ex;
  const batch = new OpenAiBatch({
    family: family.name,
    id: newBatchId(),
    request: req,
    input: readInput(file.bytes, req.endpoint),
    answerer: {
      familyName: family.name,
      answer: endpoints[req.endpoint]!,
      errorBody: (err, simId) => family.errorBody(err, simId),
      promptCache,
    },
    createdAt: ex.batches.now(),
    durationMs: ex.batches.durationMs,
  });
  ex.sendJson(200, current(ex, ex.batches.openAi.add(batch)));
}

function readLimit(raw: string | null): number {
  if (raw === null) return DEFAULT_LIMIT;
  const limit = Number(raw);
  if (Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIMIT) return limit;
  throw SimErrors.invalidParam('limit', `Invalid 'limit': expected an integer from 1 to ${MAX_LIMIT}.`);
}

/** `GET /v1/batches`: newest first, `limit` a page, the next page `after` the last id seen. */
function list(ex: Exchange): void {
  const { query } = ex;
  const all = ex.batches.openAi.list(ex.family.name).reverse();
  const page = pageOf(all, {
    limit: readLimit(query.get('limit')),
    afterId: query.get('after') ?? undefined,
  });
  const data = page.data.map((batch) => current(ex, batch));
  ex.sendJson(200, {
    object: 'list',
    data,
    first_id: page.data[0]?.id ?? null,
    last_id: page.data.at(-1)?.id ?? null,
    has_more: page.hasMore,
  });
}

/** `POST /v1/batches/{id}/cancel`: `cancelling` at once (again, if it already is); an ended batch is refused. */
function cancel(ex: Exchange): void {
  const batch = found(ex);
  const now = ex.batches.now();
  batch.settle(now, ex.batches.files);
  const status = batch.status(now);
  if (ENDED.has(status)) throw cannotCancel(status);
  if (status !== 'cancelling') batch.cancel(now);
  ex.sendJson(200, current(ex, batch));
}

/**
 * OpenAI's Batch API over `endpoints`: each line answered by the endpoint's own single-call answer, as
 * the batch's time runs (`/_sim/batches` sets how long it takes).
 */
export const batchRoutes = (endpoints: BatchEndpoints): Readonly<Record<string, RouteHandler>> => ({
  'POST /v1/batches': (ex) => create(ex, endpoints),
  'GET /v1/batches': list,
  'GET /v1/batches/:batch_id': (ex) => ex.sendJson(200, current(ex, found(ex))),
  'POST /v1/batches/:batch_id/cancel': cancel,
});
