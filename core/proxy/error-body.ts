/**
 * What a client gets for an upstream's error answer. A body the client's SDK can read passes through
 * byte for byte: a JSON object whose `error` is an object with a string `message` (the contract's own
 * shape, and OpenAI's, Anthropic's and Gemini's). Any other, a flat `{"message": …}`, a string `error`,
 * a `detail`, a body that is not JSON, becomes the contract's `{"error":{"code","message","type":"error"}}`
 * keeping the vendor's message and code, so `e.error` in an SDK is never undefined.
 */
import { STATUS_CODES } from 'node:http';
import { isJsonObject, type JsonObject } from '../base/json';
import type { ResponseReader, VendorError } from '../contracts/reader';

/** Where vendors put an error's message, tried in order; the first string wins. */
const MESSAGE_MEMBERS = ['message', 'error', 'error_message', 'detail', 'msg', 'title'] as const;
/** Where vendors put an error's code; a number (an HTTP or a vendor status) is written as text. */
const CODE_MEMBERS = ['code', 'error_code', 'type', 'status'] as const;
/** The code of a mapped error whose vendor named none. */
const NO_CODE = 'upstream_error';
/** A message quoted from a body that is not JSON is cut here (an HTML error page says little more). */
const TEXT_LIMIT = 500;

const readable = (json: JsonObject | undefined): boolean =>
  isJsonObject(json?.error) && typeof json.error.message === 'string';

function firstString(json: JsonObject, members: readonly string[]): string | undefined {
  for (const member of members) {
    const value = json[member];
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}

/** A `detail` list of `{msg}` entries (a validation failure) read as one message. */
function detailList(json: JsonObject): string | undefined {
  if (!Array.isArray(json.detail)) return undefined;
  const messages = json.detail.flatMap((d) => (isJsonObject(d) && typeof d.msg === 'string' ? [d.msg] : []));
  return messages.length ? messages.join('; ') : undefined;
}

const statusLine = (status: number): string =>
  `the upstream answered ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd();

function vendorMessage(answer: VendorError): string {
  const { json } = answer;
  // A nested `error` object without a string message still names its message where the flat one would.
  const inner = json && isJsonObject(json.error) ? json.error : undefined;
  const fromJson =
    json &&
    ((inner && firstString(inner, MESSAGE_MEMBERS)) ??
      firstString(json, MESSAGE_MEMBERS) ??
      detailList(json));
  if (fromJson) return fromJson;
  if (json) return statusLine(answer.status);
  const text = answer.body.toString('utf8').trim();
  return text ? text.slice(0, TEXT_LIMIT) : statusLine(answer.status);
}

function vendorCode(json: JsonObject | undefined): string {
  if (!json) return NO_CODE;
  const inner = isJsonObject(json.error) ? json.error : undefined;
  return (inner && firstString(inner, CODE_MEMBERS)) ?? firstString(json, CODE_MEMBERS) ?? NO_CODE;
}

/**
 * The gateway's default error-body hook (ResponseReader.errorBody): undefined passes the vendor's body
 * through, else the contract's error body with the vendor's message and code.
 */
export function contractErrorBody(answer: VendorError): JsonObject | undefined {
  if (readable(answer.json)) return undefined;
  return { error: { code: vendorCode(answer.json), message: vendorMessage(answer), type: 'error' } };
}

function parsedObject(body: Buffer): JsonObject | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The body the client gets for an upstream error answer, by the family's hook or the default; when it is
 * not the vendor's own, `headers` are made to describe it.
 */
export function clientErrorBody(
  reader: ResponseReader,
  status: number,
  body: Buffer,
  headers: Record<string, unknown>,
): Buffer {
  const answer: VendorError = { status, body, json: parsedObject(body) };
  const replaced = reader.errorBody ? reader.errorBody(answer) : contractErrorBody(answer);
  if (replaced === undefined) return body;
  headers['content-type'] = 'application/json';
  return Buffer.from(JSON.stringify(replaced));
}
