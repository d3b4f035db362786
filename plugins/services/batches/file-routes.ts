/**
 * OpenAI's files API for batch input: upload (checked line by line), list, read, download, delete. A
 * file is the uploading key's: for any other key it does not exist (404).
 */
import type { ServiceEndpoint, ServiceExchange, FileStore, StoredFile } from '../../../core/kit/service';
import type { Catalogue } from '../../../core/kit/tokens';
import { BatchErrors } from './batch-errors';
import { fileObject } from './file-object';
import { newFileId } from './ids';
import { fileLines, readInputLines } from './input-lines';
import { readUpload } from './multipart-upload';
import type { BatchOptions } from './options';
import { pageQuery } from './page-query';
import { listOf, sendBytes, sendJson } from './replies';

export interface FileRoutesParts {
  readonly options: BatchOptions;
  readonly files: FileStore;
  readonly catalogue: Catalogue;
  /** How long the gateway keeps a file (`storage.batch_retention`); 0 keeps it. */
  readonly retentionMs: number;
  readonly now: () => number;
}

/** Room for the multipart framing and fields around an upload's file. */
const MULTIPART_ROOM = 64 * 1024;

const ownerOf = (exchange: ServiceExchange): string | null => exchange.ctx.key?.id ?? null;

/** The caller's own file, or 404. */
export async function ownFile(
  files: FileStore,
  exchange: ServiceExchange,
  id: string,
  now: number,
): Promise<StoredFile> {
  const file = await files.get(id, now);
  if (!file || file.key_id !== ownerOf(exchange)) throw BatchErrors.fileNotFound(id);
  return file;
}

export function fileRoutes(parts: FileRoutesParts): ServiceEndpoint[] {
  const { files, now } = parts;
  const idOf = (exchange: ServiceExchange): string => exchange.ctx.params.id ?? '';
  return [
    {
      id: 'files',
      method: 'POST',
      path: '/v1/files',
      // The multipart framing around the file is small; the file itself is held to the cap exactly.
      bodyLimit: parts.options.max_file_size + MULTIPART_ROOM,
      handle: (exchange) => upload(parts, exchange),
    },
    { id: 'files', method: 'GET', path: '/v1/files', handle: (exchange) => list(parts, exchange) },
    {
      id: 'files',
      method: 'GET',
      path: '/v1/files/:id',
      handle: async (exchange) =>
        sendJson(exchange, 200, fileObject(await ownFile(files, exchange, idOf(exchange), now()))),
    },
    {
      id: 'files',
      method: 'GET',
      path: '/v1/files/:id/content',
      handle: async (exchange) => {
        const file = await ownFile(files, exchange, idOf(exchange), now());
        const content = await files.content(file.id, now());
        if (!content) throw BatchErrors.fileNotFound(file.id);
        sendBytes(exchange, 'application/octet-stream', content);
      },
    },
    {
      id: 'files',
      method: 'DELETE',
      path: '/v1/files/:id',
      handle: async (exchange) => {
        const file = await ownFile(files, exchange, idOf(exchange), now());
        if (!(await files.delete(file.id, now()))) throw BatchErrors.fileNotFound(file.id);
        sendJson(exchange, 200, { id: file.id, object: 'file', deleted: true });
      },
    },
  ];
}

async function upload(parts: FileRoutesParts, exchange: ServiceExchange): Promise<void> {
  const { ctx } = exchange;
  const { purpose, filename, content } = await readUpload(ctx.headers, await ctx.rawBody());
  if (purpose !== 'batch') throw BatchErrors.badUpload("'purpose' must be 'batch'");
  if (content.length > parts.options.max_file_size)
    throw BatchErrors.fileTooLarge(parts.options.max_file_size);
  const lines = readInputLines(content, parts.catalogue, ctx, fileLines(parts.options.max_lines));
  const created = parts.now();
  const file: StoredFile = {
    id: newFileId(),
    key_id: ownerOf(exchange),
    ...(ctx.team ? { team_id: ctx.team.id } : {}),
    filename,
    purpose: 'batch',
    bytes: content.length,
    lines: lines.length,
    created_at: created,
    expires_at: parts.retentionMs > 0 ? created + parts.retentionMs : null,
  };
  await parts.files.put(file, content);
  sendJson(exchange, 200, fileObject(file));
}

async function list(parts: FileRoutesParts, exchange: ServiceExchange): Promise<void> {
  const { limit, after, params } = pageQuery(exchange.req, 10_000, 10_000);
  const purpose = params.get('purpose');
  if (purpose !== null && purpose !== 'batch' && purpose !== 'batch_output')
    throw BatchErrors.badUpload("query parameter 'purpose' must be batch or batch_output");
  const page = await parts.files.page(
    {
      key_id: ownerOf(exchange),
      limit: limit + 1,
      ...(after ? { after } : {}),
      ...(purpose ? { purpose } : {}),
    },
    parts.now(),
  );
  sendJson(exchange, 200, listOf(page.slice(0, limit).map(fileObject), page.length > limit));
}
