/**
 * Anthropic's Message Batches API, as the `@anthropic-ai/sdk` calls it: create a batch of messages
 * requests, read it, list them, cancel it, and read its results as JSON lines. The requests are kept as
 * the batch's input file, so it runs, bills and ends as every batch does: at the vendor when the model's
 * upstream has a message batch API (modeld), else by the gateway through its own `/v1/messages`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { JsonObject } from '../../../core/kit/json';
import { Errors } from '../../../core/kit/plugin';
import type { FileStore, ServiceEndpoint, ServiceExchange, StoredFile } from '../../../core/kit/service';
import { isTerminal } from '../../../core/kit/task';
import { BatchErrors } from './batch-errors';
import { BATCH_KIND, batchOf } from './batch-work';
import { newMessageBatchId } from './ids';
import { readInputLines, type LineRules } from './input-lines';
import { messageBatchObject } from './message-batch-object';
import { messageResult } from './message-results';
import { storeBatch, type NewBatchParts } from './new-batch';
import { ownBatch } from './own-batch';
import { sendBytes, sendJson } from './replies';

export interface MessageBatchParts extends NewBatchParts {
  readonly files: FileStore;
  /** How long the gateway keeps a file (`storage.batch_retention`); 0 keeps it. */
  readonly retentionMs: number;
}

const PATH = '/v1/messages/batches';
const MESSAGES = '/v1/messages';

/** Where the client reached the gateway (its Host, and the scheme a balancer says it used). */
function originOf(headers: IncomingHttpHeaders): string {
  const proto = headers['x-forwarded-proto'];
  const scheme = typeof proto === 'string' && proto.split(',')[0]!.trim() === 'https' ? 'https' : 'http';
  return `${scheme}://${headers.host ?? 'localhost'}`;
}

export function messageBatchRoutes(parts: MessageBatchParts): ServiceEndpoint[] {
  const { tasks } = parts;
  const shown = async (exchange: ServiceExchange) =>
    messageBatchObject(await ownBatch(tasks, exchange, 'anthropic'), originOf(exchange.ctx.headers));
  return [
    {
      id: 'message-batches',
      method: 'POST',
      path: PATH,
      bodyLimit: parts.options.max_file_size,
      handle: (exchange) => create(parts, exchange),
    },
    { id: 'message-batches', method: 'GET', path: PATH, handle: (exchange) => list(parts, exchange) },
    {
      id: 'message-batches',
      method: 'GET',
      path: `${PATH}/:id`,
      handle: async (exchange) => sendJson(exchange, 200, await shown(exchange)),
    },
    {
      id: 'message-batches',
      method: 'POST',
      path: `${PATH}/:id/cancel`,
      handle: (exchange) => cancel(parts, exchange),
    },
    {
      id: 'message-batches',
      method: 'GET',
      path: `${PATH}/:id/results`,
      handle: (exchange) => results(parts, exchange),
    },
  ];
}

/** A message batch's requests: at most `max_lines`, each `{custom_id, params}`, named `requests[i]`. */
function requestsOf(body: JsonObject, maxLines: number): string {
  const { requests } = body;
  if (!Array.isArray(requests) || requests.length === 0)
    throw Errors.invalidField('requests', 'a non-empty array of requests');
  if (requests.length > maxLines)
    throw Errors.invalidField('requests', `at most ${maxLines} requests (batches.max_lines)`);
  return requests
    .map((request: unknown, i) => {
      const { custom_id, params } = (
        typeof request === 'object' && request !== null ? request : {}
      ) as JsonObject;
      if (typeof params !== 'object' || params === null || Array.isArray(params))
        throw BatchErrors.badLine(`requests[${i}]`, "'params' must be a messages request object");
      return JSON.stringify({ custom_id, method: 'POST', url: MESSAGES, body: params });
    })
    .join('\n');
}

async function create(parts: MessageBatchParts, exchange: ServiceExchange): Promise<void> {
  const { ctx } = exchange;
  const content = Buffer.from(requestsOf(await ctx.json(), parts.options.max_lines), 'utf8');
  const rules: LineRules = {
    maxLines: parts.options.max_lines,
    endpoints: [MESSAGES],
    where: (n) => `requests[${n - 1}]`,
  };
  const lines = readInputLines(content, parts.catalogue, ctx, rules);
  const id = newMessageBatchId();
  const file = await keepRequests(parts, exchange, id, content);
  const task = await storeBatch(parts, ctx, {
    id,
    api: 'anthropic',
    endpoint: MESSAGES,
    input_file_id: file.id,
    metadata: null,
    lines,
    where: rules.where,
  });
  sendJson(exchange, 200, messageBatchObject(task, originOf(ctx.headers)));
}

/** The requests, kept as the batch's input file (the caller's, as every file of its batches). */
async function keepRequests(
  parts: MessageBatchParts,
  exchange: ServiceExchange,
  batchId: string,
  content: Buffer,
): Promise<StoredFile> {
  const now = parts.now();
  const { ctx } = exchange;
  const file: StoredFile = {
    id: `file-${batchId.slice('msgbatch_'.length)}`,
    key_id: ctx.key?.id ?? null,
    ...(ctx.team ? { team_id: ctx.team.id } : {}),
    filename: `${batchId}_requests.jsonl`,
    purpose: 'batch',
    bytes: content.length,
    lines: content.toString('utf8').split('\n').length,
    created_at: now,
    expires_at: parts.retentionMs > 0 ? now + parts.retentionMs : null,
  };
  await parts.files.put(file, content);
  return file;
}

async function list(parts: MessageBatchParts, exchange: ServiceExchange): Promise<void> {
  const params = new URL(exchange.req.url ?? '/', 'http://gateway').searchParams;
  const limit = Number(params.get('limit') ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw Errors.invalidQuery('limit', 'an integer from 1 to 1000');
  if (params.has('before_id'))
    throw Errors.invalidQuery('before_id', 'left out: pages run from the newest, by after_id');
  const key_id = exchange.ctx.key?.id ?? null;
  const afterId = params.get('after_id');
  const from = afterId === null ? undefined : await parts.tasks.get(afterId);
  const page = await parts.tasks.page({
    kind: BATCH_KIND,
    key_id: key_id ?? undefined,
    limit: limit + 1,
    ...(from ? { after: { created_at: from.created_at, id: from.id } } : {}),
  });
  const own = page.filter((task) => task.key_id === key_id && batchOf(task).api === 'anthropic');
  const origin = originOf(exchange.ctx.headers);
  const data = own.slice(0, limit).map((task) => messageBatchObject(task, origin));
  sendJson(exchange, 200, {
    data,
    has_more: own.length > limit,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  });
}

async function cancel(parts: MessageBatchParts, exchange: ServiceExchange): Promise<void> {
  const task = await ownBatch(parts.tasks, exchange, 'anthropic');
  const origin = originOf(exchange.ctx.headers);
  if (isTerminal(task.status)) throw BatchErrors.notCancellable(task.id, 'ended');
  const asked = await parts.tasks.requestCancel(task.id, parts.now());
  if (!asked) throw BatchErrors.notCancellable(task.id, 'ended');
  sendJson(exchange, 200, messageBatchObject(asked, origin));
}

async function results(parts: MessageBatchParts, exchange: ServiceExchange): Promise<void> {
  const task = await ownBatch(parts.tasks, exchange, 'anthropic');
  if (!isTerminal(task.status)) throw BatchErrors.notEnded(task.id);
  const work = batchOf(task);
  const now = parts.now();
  const ids = [work.output_file_id, work.error_file_id].filter((id): id is string => id !== null);
  const contents = await Promise.all(ids.map((id) => parts.files.content(id, now)));
  const lines = contents.flatMap((content) =>
    (content?.toString('utf8') ?? '').split('\n').filter((line) => line !== ''),
  );
  const jsonl = lines.map(messageResult).join('\n');
  sendBytes(exchange, 'application/x-jsonl', Buffer.from(jsonl === '' ? '' : `${jsonl}\n`, 'utf8'));
}
