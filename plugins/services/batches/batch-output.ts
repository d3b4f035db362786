/**
 * A finished batch's output and error files, in OpenAI's result line format: answers with status 200 go
 * to the output file, every other line (an error answer, or no answer: the batch was cancelled or
 * expired first, or the answer was lost) to the error file. Each line once, in input order.
 */
import { createHash } from 'node:crypto';
import type { BatchLineResult } from '../../../core/kit/service';

/** Why a line has no answer, when it has none. */
export interface Unanswered {
  readonly code: string;
  readonly message: string;
}

export const UNANSWERED = {
  cancelled: { code: 'batch_cancelled', message: 'the batch was cancelled before this request ran' },
  expired: { code: 'batch_expired', message: 'the batch expired before this request ran' },
  interrupted: { code: 'batch_line_interrupted', message: 'the request was sent, but its answer was lost' },
  inputGone: { code: 'input_file_missing', message: 'the batch input file was deleted' },
  /** The vendor's batch was submitted by a step that died before it could store the vendor's id. */
  submitLost: {
    code: 'batch_submit_interrupted',
    message: 'the gateway stopped while handing the batch to its vendor; submit it again',
  },
} as const satisfies Readonly<Record<string, Unanswered>>;

export interface BatchFiles {
  /** JSON lines, or empty when no line belongs in the file. */
  readonly output: string;
  readonly errors: string;
  readonly completed: number;
  readonly failed: number;
  /** Lines without an answer, by why (`batch_cancelled`, `batch_expired`, …). */
  readonly unanswered: Readonly<Record<string, number>>;
}

const resultId = (batchId: string, index: number): string =>
  `batch_req_${createHash('sha256').update(`${batchId}\u0000${index}`).digest('hex').slice(0, 24)}`;

/**
 * `customIds[i]` is line i's; `missing(i)` says why line i has no result. Lines with results are
 * written as they were answered.
 */
export function batchFiles(
  batchId: string,
  customIds: readonly string[],
  results: readonly BatchLineResult[],
  missing: (index: number) => Unanswered,
): BatchFiles {
  const byIndex = new Map(results.map((r) => [r.index, r]));
  const output: string[] = [];
  const errors: string[] = [];
  const unanswered: Record<string, number> = {};
  const tally = (error: Unanswered | null): void => {
    if (error) unanswered[error.code] = (unanswered[error.code] ?? 0) + 1;
  };
  customIds.forEach((custom_id, index) => {
    const id = resultId(batchId, index);
    const result = byIndex.get(index);
    if (!result) {
      const why = missing(index);
      tally(why);
      errors.push(JSON.stringify({ id, custom_id, response: null, error: why }));
      return;
    }
    const { status_code, request_id, body, error } = result;
    // No answer at all (a vendor's line cancelled or expired): no response, only why.
    const response = status_code === 0 && body === null ? null : { status_code, request_id, body };
    if (response === null) tally(error);
    const line = JSON.stringify({ id, custom_id, response, error });
    (status_code === 200 && error === null ? output : errors).push(line);
  });
  const text = (lines: string[]): string => (lines.length === 0 ? '' : lines.join('\n') + '\n');
  return {
    output: text(output),
    errors: text(errors),
    completed: output.length,
    failed: errors.length,
    unanswered,
  };
}
