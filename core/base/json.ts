/** JSON objects as the gateway reads request and response bodies. */
export type JsonObject = Record<string, unknown>;

/** Character codes of JSON's structure, for the scans that read JSON text without parsing it. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;

/** Whether the character at `at` in `text` is escaped: an odd run of backslashes before it. */
export function escapedAt(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/** The index of the quote closing the JSON string that opens at `open` in `text`, or -1 if it never closes. */
export function stringEnd(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  while (end > 0 && escapedAt(text, end)) end = text.indexOf('"', end + 1);
  return end;
}

/**
 * Where a member's key (`"choices":[`) is in each chunk of one stream. The chunks repeat one envelope, so
 * it is looked for first where it was in the last chunk: a slice compared whole, which V8 runs about three
 * times faster than `startsWith(key, at)`, a loop of charCodeAt, or a search that stops at every quote
 * of the envelope before it.
 */
export class RepeatedMember {
  private at = 0;

  constructor(private readonly key: string) {}

  /** Where the key ends in `chunk` (its value begins there), or -1 when the chunk does not hold it. */
  after(chunk: string): number {
    const { key } = this;
    if (chunk.substring(this.at, this.at + key.length) !== key) {
      const at = chunk.indexOf(key);
      if (at < 0) return -1;
      this.at = at;
    }
    return this.at + key.length;
  }
}

/** `value` when it is a string, else `fallback`: a field of a parsed body read as text. */
export const stringOr = (value: unknown, fallback: string): string =>
  typeof value === 'string' ? value : fallback;

/** Text `JSON.stringify` writes as it is: no quote, backslash, control character or surrogate. */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const WRITTEN_AS_IS = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** Whether `JSON.stringify(text)` is `text` in quotes. */
export const writtenAsIs = (text: string): boolean => WRITTEN_AS_IS.test(text);

/**
 * `JSON.stringify(text)`, to the byte: an id or a name needs no escape, and a regex test costs a fraction
 * of the serialiser's call into the runtime.
 */
export const stringJson = (text: string): string => (writtenAsIs(text) ? `"${text}"` : JSON.stringify(text));

/** `JSON.stringify(n)`: the number as written, or `null` for one JSON has no word for (NaN, Infinity). */
export const numberJson = (n: number): string => (Number.isFinite(n) ? String(n) : 'null');

/** A JSON object (not null, not an array). */
export const isJsonObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The bytes of a JSON object that has members, with `member` (`"name":value`, a name it lacks) added
 * first: one member added without re-serialising the rest, so the client's bytes go on as sent.
 */
export function withFirstMember(raw: Buffer, member: string): Buffer {
  const open = raw.indexOf(OPEN_OBJECT) + 1; // after `{`: whatever precedes it in an object's text is whitespace
  const added = `${member},`;
  const addedBytes = Buffer.byteLength(added);
  // Written into one buffer: a concat of two subarrays and the member would make a Buffer of each first.
  const out = Buffer.allocUnsafe(raw.length + addedBytes);
  raw.copy(out, 0, 0, open);
  out.write(added, open);
  raw.copy(out, open + addedBytes, open);
  return out;
}

/** How deep `at` lies in the JSON text `data`: 1 inside the outermost object; -1 inside a string. */
function depthAt(data: string, at: number): number {
  let depth = 0;
  for (let i = 0; i < at; i++) {
    const c = data.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(data, i); // strings are skipped whole
      if (i < 0 || i >= at) return -1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return depth;
}

/**
 * The JSON text `data` without the member `data[at, at + length)` (`"name":value`, written without
 * spaces), cut with its comma and the rest kept byte for byte; undefined when that member is not one of
 * the outermost object's, plainly delimited (the caller then parses the text).
 */
export function withoutMember(data: string, at: number, length: number): string | undefined {
  if (depthAt(data, at) !== 1) return undefined;
  const end = at + length;
  if (data.charCodeAt(end) === COMMA) return data.slice(0, at) + data.slice(end + 1);
  if (data.charCodeAt(at - 1) === COMMA) return data.slice(0, at - 1) + data.slice(end);
  if (data.charCodeAt(at - 1) === OPEN_OBJECT && data.charCodeAt(end) === CLOSE_OBJECT)
    return data.slice(0, at) + data.slice(end);
  return undefined;
}
