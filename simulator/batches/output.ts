import type { FamilyStore } from '../batch-runs/family-store';
import type { LineResult } from '../batch-runs/line';
import type { StoredFile } from '../files/stored-file';
import { newBatchRequestId, newFileId } from '../ids';

/** Where a batch's answers went: the ids of its output and error files, null for one with nothing in it. */
export interface BatchFiles {
  readonly output: string | null;
  readonly error: string | null;
}

/** One answered line as the files hold it; an error line differs only in its status and body. */
const outputLine = (r: LineResult): string =>
  JSON.stringify({
    id: newBatchRequestId(),
    custom_id: r.customId,
    response: { status_code: r.status, request_id: r.simId, body: r.body },
    error: null,
  });

/** Where the batch is, for the files it writes. */
export interface Writer {
  readonly family: string;
  readonly batchId: string;
  /** Epoch ms the batch ended: the files' creation time. */
  readonly at: number;
  readonly files: FamilyStore<StoredFile>;
}

function write(w: Writer, kind: 'output' | 'error', results: readonly LineResult[]): string | null {
  if (results.length === 0) return null;
  const bytes = Buffer.from(results.map((r) => `${outputLine(r)}\n`).join(''), 'utf8');
  const filename = `${w.batchId}_${kind}.jsonl`;
  const file = {
    family: w.family,
    id: newFileId(),
    filename,
    purpose: 'batch_output',
    bytes,
    createdAt: w.at,
  };
  return w.files.add(file).id;
}

/**
 * Writes a batch's answers as the vendor does once it ends: the lines answered 200 to the output file,
 * every other to the error file (both of purpose `batch_output`), in input order.
 */
export function writeFiles(w: Writer, results: readonly LineResult[]): BatchFiles {
  return {
    output: write(
      w,
      'output',
      results.filter((r) => r.status === 200),
    ),
    error: write(
      w,
      'error',
      results.filter((r) => r.status !== 200),
    ),
  };
}
