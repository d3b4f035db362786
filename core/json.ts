/** JSON objects as the gateway reads request and response bodies. */
export type JsonObject = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export const isJsonObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The bytes of a JSON object that has members, with `member` (`"name":value`, a name it lacks) added
 * first: one member added without re-serialising the rest, so the client's bytes go on as sent.
 */
export function withFirstMember(raw: Buffer, member: string): Buffer {
  const open = raw.indexOf(0x7b) + 1; // after `{`: whatever precedes it in an object's text is whitespace
  return Buffer.concat([raw.subarray(0, open), Buffer.from(`${member},`), raw.subarray(open)]);
}
