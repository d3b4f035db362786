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

/** A JSON object (not null, not an array). */
export const isJsonObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The bytes of a JSON object that has members, with `member` (`"name":value`, a name it lacks) added
 * first: one member added without re-serialising the rest, so the client's bytes go on as sent.
 */
export function withFirstMember(raw: Buffer, member: string): Buffer {
  const open = raw.indexOf(OPEN_OBJECT) + 1; // after `{`: whatever precedes it in an object's text is whitespace
  return Buffer.concat([raw.subarray(0, open), Buffer.from(`${member},`), raw.subarray(open)]);
}
