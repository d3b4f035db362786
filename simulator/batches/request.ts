import { isRecord } from '../is-record';
import { SimErrors } from '../sim-error';

/** What `POST /v1/batches` asks for. */
export interface BatchRequest {
  readonly inputFileId: string;
  readonly endpoint: string;
  readonly completionWindow: string;
  readonly metadata: Readonly<Record<string, string>> | null;
}

/** The one window the vendor offers. */
const WINDOW = '24h';
// The vendor's bounds on `metadata`: 16 pairs, keys up to 64 characters, values up to 512.
const MAX_PAIRS = 16;
const MAX_KEY = 64;
const MAX_VALUE = 512;

function requiredText(body: Record<string, unknown>, key: string): string {
  const value = body[key];
  if (value === undefined || value === null) throw SimErrors.missingParam(key);
  if (typeof value !== 'string' || value === '') {
    throw SimErrors.invalidParam(key, `Invalid '${key}': expected a non-empty string.`);
  }
  return value;
}

function readMetadata(value: unknown): Readonly<Record<string, string>> | null {
  if (value === undefined || value === null) return null;
  const pairs = isRecord(value) ? Object.entries(value) : null;
  const fits =
    pairs !== null &&
    pairs.length <= MAX_PAIRS &&
    pairs.every(([k, v]) => k.length <= MAX_KEY && typeof v === 'string' && v.length <= MAX_VALUE);
  if (fits) return value as Record<string, string>;
  const why = `Invalid 'metadata': at most ${MAX_PAIRS} pairs of strings, keys up to ${MAX_KEY} characters and values up to ${MAX_VALUE}.`;
  throw SimErrors.invalidParam('metadata', why);
}

/**
 * Validates a create body the way the vendor does at the front door; the input file is read later.
 * @throws SimError 400 naming the field at fault.
 */
export function parseBatchRequest(body: unknown, endpoints: readonly string[]): BatchRequest {
  if (!isRecord(body)) throw SimErrors.invalidParam('body', 'The request body must be a JSON object.');
  const inputFileId = requiredText(body, 'input_file_id');
  const endpoint = requiredText(body, 'endpoint');
  if (!endpoints.includes(endpoint)) {
    const supported = endpoints.map((e) => `'${e}'`).join(', ');
    throw SimErrors.invalidParam(
      'endpoint',
      `Invalid 'endpoint': '${endpoint}'. Supported values are: ${supported}.`,
    );
  }
  const completionWindow = requiredText(body, 'completion_window');
  if (completionWindow !== WINDOW) {
    const why = `Invalid 'completion_window': '${completionWindow}'. Supported values are: '${WINDOW}'.`;
    throw SimErrors.invalidParam('completion_window', why);
  }
  return { inputFileId, endpoint, completionWindow, metadata: readMetadata(body.metadata) };
}
