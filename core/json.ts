/** JSON objects as the gateway reads request and response bodies. */
export type JsonObject = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export const isJsonObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
