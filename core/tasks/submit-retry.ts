/**
 * When a video submit may go to another upstream: only when the first provably created nothing there, so
 * a retry cannot start a second paid task. That is a connection never made (nothing was sent) or a 429
 * (the vendor refused before doing anything). A timeout or a 5xx may have created a task upstream whose
 * id the gateway never learnt: never retried.
 */
import { GatewayError } from '../base/errors';
import type { SubmitOutcome } from '../contracts/task-upstream';

/** Errors of a connection that was never made: no byte of the submit reached the upstream. */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Whether `error` (thrown by a submit) is a connection never made, along its cause chain. */
export function neverConnected(error: unknown): boolean {
  if (!(error instanceof GatewayError) || error.code !== 'upstream_unreachable') return false;
  for (let cause: unknown = error.cause, depth = 0; cause && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_CONNECTED.has(code)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/** Whether a submit's result (an outcome, or what it threw) leaves nothing upstream and may go elsewhere. */
export const createdNothing = (outcome: SubmitOutcome | undefined, error: unknown): boolean =>
  outcome ? !outcome.accepted && outcome.status === 429 : neverConnected(error);

/** Whether it counts against the upstream's health (as the proxy counts: no answer, 5xx, 429). */
export const submitFailed = (outcome: SubmitOutcome | undefined): boolean =>
  !outcome || (!outcome.accepted && (outcome.status >= 500 || outcome.status === 429));
