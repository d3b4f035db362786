import { pageOf } from '../batch-runs/page';
import type { JsonAnswer } from '../call';
import type { Exchange, RouteHandler } from '../exchange';
import { newMessageBatchId } from '../ids';
import { checkVersion } from '../messages/version';
import { requestOrigin } from '../request-origin';
import { SimErrors } from '../sim-error';
import { MessageBatch } from './batch';
import { batchObject } from './batch-object';
import { cannotCancel, deleteWhileProcessing, noSuchBatch, stillProcessing } from './errors';
import { parseBatchRequests } from './request';
import { resultsJsonl } from './results';

// The vendor's page size: 20 unless asked, at most 1,000.
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

const PATH = '/v1/messages/batches';

/** The batch `:batch_id` names, if this family issued it. @throws SimError 404 otherwise. */
function found(ex: Exchange): MessageBatch {
  const id = ex.params.batch_id ?? '';
  const batch = ex.batches.messages.get(ex.family.name, id);
  if (!batch) throw noSuchBatch(id);
  return batch;
}

/** The batch as of now, its due requests answered. */
function current(ex: Exchange, batch: MessageBatch): Record<string, unknown> {
  const now = ex.batches.now();
  batch.run.catchUp(now);
  return batchObject(batch, now);
}

/** `POST …/batches`: the requests' envelopes are checked now, each request's params when its turn comes. */
function create(ex: Exchange, answer: JsonAnswer): void {
  const requests = parseBatchRequests(ex.body);
  const { family, promptCache } = ex;
  const id = newMessageBatchId();
  const batch = new MessageBatch({
    family: family.name,
    id,
    requests,
    answerer: {
      familyName: family.name,
      answer,
      errorBody: (err, simId) => family.errorBody(err, simId),
      promptCache,
    },
    createdAt: ex.batches.now(),
    durationMs: ex.batches.durationMs,
    resultsUrl: `${requestOrigin(ex.req)}${family.mount}${PATH}/${id}/results`,
  });
  ex.sendJson(200, current(ex, ex.batches.messages.add(batch)));
}

function readLimit(raw: string | null): number {
  if (raw === null) return DEFAULT_LIMIT;
  const limit = Number(raw);
  if (Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIMIT) return limit;
  throw SimErrors.invalidParam('limit', `limit: Input should be an integer from 1 to ${MAX_LIMIT}`);
}

/** `GET …/batches`: newest first, `limit` a page, paged by `after_id` (older) or `before_id` (newer). */
function list(ex: Exchange): void {
  const { query } = ex;
  const all = ex.batches.messages.list(ex.family.name).reverse();
  const page = pageOf(all, {
    limit: readLimit(query.get('limit')),
    afterId: query.get('after_id') ?? undefined,
    beforeId: query.get('before_id') ?? undefined,
  });
  ex.sendJson(200, {
    data: page.data.map((batch) => current(ex, batch)),
    has_more: page.hasMore,
    first_id: page.data[0]?.id ?? null,
    last_id: page.data.at(-1)?.id ?? null,
  });
}

/** `POST …/{id}/cancel`: `canceling` at once (again, if it already is); an ended batch is refused. */
function cancel(ex: Exchange): void {
  const batch = found(ex);
  const now = ex.batches.now();
  const status = batch.status(now);
  if (status === 'ended') throw cannotCancel(batch.id);
  if (status === 'in_progress') batch.cancel(now);
  ex.sendJson(200, current(ex, batch));
}

/** `DELETE …/{id}`: an ended batch only. */
function remove(ex: Exchange): void {
  const batch = found(ex);
  if (batch.status(ex.batches.now()) !== 'ended') throw deleteWhileProcessing(batch.id);
  ex.batches.messages.delete(batch.id);
  ex.sendJson(200, { id: batch.id, type: 'message_batch_deleted' });
}

/** `GET …/{id}/results`: a JSON line per request once the batch has ended, as the vendor serves the file. */
function results(ex: Exchange): void {
  const batch = found(ex);
  const now = ex.batches.now();
  batch.run.catchUp(now);
  if (batch.status(now) !== 'ended') throw stillProcessing(batch.id);
  ex.sendBytes(200, resultsJsonl(batch), 'application/x-jsonl', {
    'content-disposition': `attachment; filename*=utf-8''${batch.id}_results.jsonl`,
  });
}

/** Every route asks for the version header first, as the Messages route does. */
const versioned =
  (handler: (ex: Exchange) => void): RouteHandler =>
  (ex) => {
    checkVersion(ex.headers);
    handler(ex);
  };

/**
 * Anthropic's Message Batches, each request's params answered by `answer`, the single call's own Message
 * answer, as the batch's time runs (`/_sim/batches` sets how long it takes).
 */
export const messageBatchRoutes = (answer: JsonAnswer): Readonly<Record<string, RouteHandler>> => ({
  [`POST ${PATH}`]: versioned((ex) => create(ex, answer)),
  [`GET ${PATH}`]: versioned(list),
  [`GET ${PATH}/:batch_id`]: versioned((ex) => ex.sendJson(200, current(ex, found(ex)))),
  [`POST ${PATH}/:batch_id/cancel`]: versioned(cancel),
  [`DELETE ${PATH}/:batch_id`]: versioned(remove),
  [`GET ${PATH}/:batch_id/results`]: versioned(results),
});
