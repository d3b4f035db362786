/**
 * Sends one line of a batch the gateway runs through the gateway's own pipeline (its loopback address),
 * with the batch's key: authenticated, limited, routed, metered and priced exactly as the same call made
 * alone. The line's request id is the batch's and the line's, and a sealed header tells the metering
 * stage which batch and line the call's usage record belongs to.
 */
import type { JsonObject } from '../../../core/kit/json';
import { BATCH_LINE_HEADER, type BatchLineResult } from '../../../core/kit/service';
import type { InputLine } from './input-lines';

/**
 * The gateway's refusals that mean no upstream saw the line (its rate limits, a shutdown, a store or
 * every upstream unavailable, a full usage queue): it is sent again later, which sends nothing twice.
 */
const NOT_SENT = new Set([
  'rate_limited',
  'shutting_down',
  'store_unavailable',
  'upstream_unavailable',
  'usage_backlog',
]);

export interface LineCall {
  readonly origin: string;
  /** The batch's key, opened; null when the gateway authenticates nobody. */
  readonly credential: string | null;
  /** Headers of the batch's creation a line carries as the same call would (an API version). */
  readonly headers: Readonly<Record<string, string>>;
  /** The sealed `{batch_id, custom_id}` for BATCH_LINE_HEADER. */
  readonly tag: string;
  readonly requestId: string;
}

/** The line's result, or `not_sent` when the gateway refused it before any upstream saw it. */
export type LineAnswer = BatchLineResult | 'not_sent';

/** `error.code` of an error body (the gateway's own, or a vendor's in the same shape). */
const errorCode = (body: JsonObject | null): unknown => {
  const error = body?.error;
  return typeof error === 'object' && error !== null && !Array.isArray(error)
    ? (error as JsonObject).code
    : undefined;
};

export async function callLine(index: number, line: InputLine, call: LineCall): Promise<LineAnswer> {
  let response: Response;
  try {
    response = await fetch(`${call.origin}${line.url}`, {
      method: 'POST',
      headers: {
        ...call.headers,
        'content-type': 'application/json',
        'x-request-id': call.requestId,
        [BATCH_LINE_HEADER]: call.tag,
        ...(call.credential !== null ? { authorization: `Bearer ${call.credential}` } : {}),
      },
      body: JSON.stringify(line.body),
    });
  } catch (e) {
    // Refused at connect: the gateway is stopping, and nothing was sent. Cut later: an upstream may have
    // had it, so it is never sent again.
    if (refusedAtConnect(e)) return 'not_sent';
    return interrupted(index, line, call);
  }
  let text: string;
  try {
    text = await response.text();
  } catch {
    return interrupted(index, line, call);
  }
  const body = parsedObject(text);
  if (response.status >= 400 && NOT_SENT.has(errorCode(body) as string)) return 'not_sent';
  return {
    index,
    custom_id: line.custom_id,
    status_code: response.status,
    request_id: response.headers.get('x-request-id') ?? call.requestId,
    body,
    error: body === null ? { code: 'invalid_response', message: 'the answer was not a JSON object' } : null,
  };
}

function parsedObject(text: string): JsonObject | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as JsonObject)
      : null;
  } catch {
    return null;
  }
}

const refusedAtConnect = (e: unknown): boolean =>
  e instanceof Error && (e.cause as NodeJS.ErrnoException | undefined)?.code === 'ECONNREFUSED';

/** A line whose answer was lost on the way: it may have run, so it ends as a failure, not a retry. */
export const interrupted = (
  index: number,
  line: InputLine,
  call: Pick<LineCall, 'requestId'>,
): LineAnswer => ({
  index,
  custom_id: line.custom_id,
  status_code: 500,
  request_id: call.requestId,
  body: null,
  error: { code: 'batch_line_interrupted', message: 'the line was sent, but its answer was lost' },
});
