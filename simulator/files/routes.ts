import type { Exchange, RouteHandler } from '../exchange';
import { newFileId } from '../ids';
import { SimErrors } from '../sim-error';
import { noSuchFile, notJsonl, unservedPurpose } from './errors';
import { readForm } from './form';
import { fileObject, type StoredFile } from './stored-file';

/** The one purpose the simulator's files serve: its batches' input. */
const BATCH_PURPOSE = 'batch';

/** The file `:file_id` names, if this family issued it. @throws SimError 404 otherwise. */
function found(ex: Exchange): StoredFile {
  const id = ex.params.file_id ?? '';
  const file = ex.batches.files.get(ex.family.name, id);
  if (!file) throw noSuchFile(id);
  return file;
}

/**
 * `POST /v1/files`: a multipart form with `purpose` and the `file`, checked in the vendor's order
 * (the form, the purpose, the file, its name), then kept and described.
 */
async function upload(ex: Exchange): Promise<void> {
  const form = await readForm(ex.headers, ex.rawBody);
  const purpose = form.fields.get('purpose');
  if (purpose === undefined) throw SimErrors.missingParam('purpose');
  if (purpose !== BATCH_PURPOSE) throw unservedPurpose(purpose);
  const part = form.files.find((f) => f.field === 'file');
  if (!part) throw SimErrors.missingParam('file');
  if (!part.filename.endsWith('.jsonl')) throw notJsonl();
  const file = ex.batches.files.add({
    family: ex.family.name,
    id: newFileId(),
    filename: part.filename,
    purpose,
    bytes: part.bytes,
    createdAt: ex.batches.now(),
  });
  ex.sendJson(200, fileObject(file));
}

/**
 * OpenAI's Files API as far as batches use it: upload, describe, read and delete. A file's content goes
 * out as the vendor sends it, `application/octet-stream`, whatever it holds.
 */
export const filesRoutes: Readonly<Record<string, RouteHandler>> = {
  'POST /v1/files': upload,
  'GET /v1/files/:file_id': (ex) => ex.sendJson(200, fileObject(found(ex))),
  'GET /v1/files/:file_id/content': (ex) => ex.sendBytes(200, found(ex).bytes, 'application/octet-stream'),
  'DELETE /v1/files/:file_id': (ex) => {
    const { id } = found(ex);
    ex.batches.files.delete(id);
    ex.sendJson(200, { id, object: 'file', deleted: true });
  },
};
