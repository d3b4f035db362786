/**
 * A batch's input file read as the vendor validates it before any line runs: each line a JSON object with
 * `custom_id`, `method`, `url` and `body`; the ids unique; every url the batch's endpoint; one model for
 * the whole file. What fails here fails the batch (`status: failed`, with `errors`), as the vendor's does;
 * what is wrong inside a body is the line's own error answer, later.
 */
import type { BatchLine } from '../batch-runs/line';
import { isRecord } from '../is-record';

/** One problem of the input file, as the Batch object's `errors.data` lists it. */
export interface BatchError {
  readonly code: string;
  readonly message: string;
  readonly param: string | null;
  /** 1-based, as the vendor counts; null for the file as a whole. */
  readonly line: number | null;
}

/** What validation found: the lines and the model they name, or why the batch fails. */
export type BatchInput =
  | { readonly ok: true; readonly lines: readonly BatchLine[]; readonly model: string | null }
  | { readonly ok: false; readonly errors: readonly BatchError[] };

/** The vendor's ceiling on requests a batch. */
const MAX_REQUESTS = 50_000;

/** A line that parsed: where it was, and its request. */
interface ParsedLine {
  readonly line: number;
  readonly customId: string;
  readonly url: string;
  readonly body: Record<string, unknown>;
}

/** A member every line must have, and what it must be. */
interface FieldRule {
  readonly key: string;
  readonly expected: string;
  valid(value: unknown): boolean;
}

const FIELDS: readonly FieldRule[] = [
  { key: 'custom_id', expected: 'a non-empty string', valid: (v) => typeof v === 'string' && v !== '' },
  { key: 'method', expected: "'POST'", valid: (v) => v === 'POST' },
  { key: 'url', expected: 'a string', valid: (v) => typeof v === 'string' },
  { key: 'body', expected: 'an object', valid: isRecord },
];

const error = (code: string, message: string, param: string | null, line: number | null): BatchError => ({
  code,
  message,
  param,
  line,
});

/** A line as its request, or the first thing wrong with it. */
function parseLine(text: string, line: number): ParsedLine | BatchError {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (!isRecord(value))
    return error('invalid_json_line', 'This line is not parseable as valid JSON.', null, line);
  for (const rule of FIELDS) {
    const member = value[rule.key];
    if (member === undefined) {
      return error(
        'missing_required_parameter',
        `Missing required parameter: '${rule.key}'.`,
        rule.key,
        line,
      );
    }
    if (!rule.valid(member)) {
      return error('invalid_value', `Invalid '${rule.key}': expected ${rule.expected}.`, rule.key, line);
    }
  }
  const {
    custom_id: customId,
    url,
    body,
  } = value as { custom_id: string; url: string; body: Record<string, unknown> };
  return { line, customId, url, body };
}

/** The checks across lines, each naming the lines that break it. */
function crossChecks(lines: readonly ParsedLine[], endpoint: string): BatchError[] {
  const errors: BatchError[] = [];
  const seen = new Set<string>();
  const model = lines.map((l) => l.body.model).find((m): m is string => typeof m === 'string');
  for (const l of lines) {
    if (seen.has(l.customId)) {
      const why =
        'The custom_id for this request is a duplicate of another request. The custom_id parameter must be unique for each request in a batch.';
      errors.push(error('duplicate_custom_id', why, 'custom_id', l.line));
    }
    seen.add(l.customId);
    if (l.url !== endpoint) {
      const why = `The URL provided for this request ('${l.url}') does not match the batch endpoint ('${endpoint}').`;
      errors.push(error('url_mismatch', why, 'url', l.line));
    }
    if (typeof l.body.model === 'string' && l.body.model !== model) {
      const why = `The model '${l.body.model}' does not match the batch's model '${model}': a batch's requests must all use the same model.`;
      errors.push(error('mismatched_model', why, 'body.model', l.line));
    }
  }
  return errors;
}

/** Reads and validates the file's text (blank lines are skipped, but counted). */
export function readInput(bytes: Buffer, endpoint: string): BatchInput {
  const parsed: ParsedLine[] = [];
  const errors: BatchError[] = [];
  for (const [i, text] of bytes.toString('utf8').split('\n').entries()) {
    if (text.trim() === '') continue;
    const one = parseLine(text, i + 1);
    if ('code' in one) errors.push(one);
    else parsed.push(one);
  }
  if (parsed.length === 0 && errors.length === 0) {
    errors.push(error('empty_file', 'The batch input file is empty.', null, null));
  }
  if (parsed.length > MAX_REQUESTS) {
    const why = `The batch input file has ${parsed.length} requests; a batch takes at most ${MAX_REQUESTS}.`;
    errors.push(error('too_many_tasks', why, null, null));
  }
  errors.push(...crossChecks(parsed, endpoint));
  if (errors.length > 0) return { ok: false, errors: errors.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)) };
  const model = parsed.map((l) => l.body.model).find((m): m is string => typeof m === 'string') ?? null;
  return { ok: true, lines: parsed.map((l) => ({ customId: l.customId, body: l.body })), model };
}
