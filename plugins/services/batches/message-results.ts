/**
 * A message batch's results as Anthropic's results JSONL: the batch's output and error files (OpenAI's
 * result lines, as the gateway keeps every batch) read back as one line per `custom_id`: `succeeded` with
 * the message, `errored` with the error envelope, or `canceled` / `expired` for a request that never ran.
 */
import { isJsonObject, stringOr, type JsonObject } from '../../../core/kit/json';
import { UNANSWERED } from './batch-output';

/** What a line without an answer says, by why it has none. */
const NOT_RUN: Readonly<Record<string, JsonObject>> = {
  [UNANSWERED.cancelled.code]: { type: 'canceled' },
  [UNANSWERED.expired.code]: { type: 'expired' },
};

/** One result line of an output or error file, as Anthropic's result line. */
export function messageResult(line: string): string {
  const parsed = JSON.parse(line) as JsonObject;
  const response = isJsonObject(parsed.response) ? parsed.response : undefined;
  const error = isJsonObject(parsed.error) ? parsed.error : undefined;
  return JSON.stringify({ custom_id: parsed.custom_id, result: resultOf(response, error) });
}

function resultOf(response: JsonObject | undefined, error: JsonObject | undefined): JsonObject {
  if (response?.status_code === 200 && isJsonObject(response.body))
    return { type: 'succeeded', message: response.body };
  if (response && isJsonObject(response.body)) return { type: 'errored', error: envelope(response.body) };
  const code = stringOr(error?.code, '');
  return (
    NOT_RUN[code] ?? {
      type: 'errored',
      error: envelope({ error: { type: 'api_error', message: stringOr(error?.message, code) } }),
    }
  );
}

/** Anthropic's error envelope (`{type: 'error', error: {type, message}}`) for an error body of any shape. */
function envelope(body: JsonObject): JsonObject {
  if (body.type === 'error' && isJsonObject(body.error)) return body;
  const inner = isJsonObject(body.error) ? body.error : {};
  return {
    type: 'error',
    error: {
      type: stringOr(inner.code, stringOr(inner.type, 'api_error')),
      message: stringOr(inner.message, ''),
    },
  };
}
