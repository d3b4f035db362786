/**
 * An embedding as OpenAI's `encoding_format: base64` sends it: the vector's float32 values, little-endian,
 * in base64. The `openai` SDKs ask for base64 by default and decode it so, whatever the vendor, so a
 * vendor that answers only in floats is asked for floats and the gateway encodes them here.
 */
import { isJsonObject, type JsonObject } from '../../../core/kit/json';

const FLOAT32_BYTES = 4;

/** `values` as float32 little-endian bytes in base64 (a float64 rounds to the nearest float32, as OpenAI's do). */
export function float32Base64(values: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(values.length * FLOAT32_BYTES);
  values.forEach((value, i) => bytes.writeFloatLE(value, i * FLOAT32_BYTES));
  return bytes.toString('base64');
}

const isVector = (value: unknown): value is readonly number[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'number');

/** The answer's `data` with each float vector encoded; an entry that holds no float vector is left as it is. */
export function withBase64Embeddings(data: unknown): unknown {
  if (!Array.isArray(data)) return data;
  return data.map((entry: unknown): unknown => {
    if (!isJsonObject(entry) || !isVector(entry.embedding)) return entry;
    const encoded: JsonObject = { ...entry, embedding: float32Base64(entry.embedding) };
    return encoded;
  });
}
