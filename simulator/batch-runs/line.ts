import type { JsonAnswer } from '../call';
import { newRequestId } from '../ids';
import { isRecord } from '../is-record';
import type { PromptCache } from '../prompt-cache';
import { SimError, SimErrors } from '../sim-error';

/** One request of a batch: its id, and the body the same single call would have sent. */
export interface BatchLine {
  readonly customId: string;
  readonly body: unknown;
}

/** How a line was answered: what the same single call would have answered. */
export interface LineResult {
  readonly customId: string;
  readonly status: number;
  /** The JSON answer, or the family's error body. */
  readonly body: unknown;
  /** The simulator's id of the call, which the vendors report as its request id. */
  readonly simId: string;
}

/** What answers a batch's lines: the family's single-call answer, with what its errors and cache need. */
export interface LineAnswerer {
  readonly familyName: string;
  readonly answer: JsonAnswer;
  /** The family's error body, as its routes answer errors. */
  readonly errorBody: (err: SimError, simId: string) => unknown;
  readonly promptCache: PromptCache;
}

// A line has no headers of its own: its controls are the `#sim` directives in its prompt.
const NO_HEADERS = {};

/** A batch answers each request whole; a stream has no place in its results. */
const streamRefused = (): SimError =>
  SimErrors.invalidParam('stream', 'Streaming is not supported in batch requests.');

/**
 * Answers one line as the family answers the single call, through the same code; a refusal or a forced
 * status is the line's error answer, in the family's error body.
 */
export function answerLine(line: BatchLine, by: LineAnswerer): LineResult {
  const simId = newRequestId();
  const { customId, body } = line;
  const call = { body, headers: NO_HEADERS, simId, familyName: by.familyName, promptCache: by.promptCache };
  try {
    if (isRecord(body) && body.stream === true) throw streamRefused();
    return { customId, status: 200, body: by.answer(call), simId };
  } catch (err) {
    if (!(err instanceof SimError)) console.error('simulator: batch line failed', err);
    const error = err instanceof SimError ? err : new SimError(500);
    return { customId, status: error.status, body: by.errorBody(error, simId), simId };
  }
}
