/**
 * Deterministic embedding vectors: the same model and input give the same vector, of any size, so tests
 * can compare a float answer with a base64 one. Values are float32 (as the vendors' are), so encoding
 * them as float32 loses nothing, and each vector has unit length, as OpenAI's do.
 */

/** FNV-1a of `text`: the seed of the input's vector. */
function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** mulberry32: a small PRNG whose stream is fixed by its seed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The vector of one input (text, or token ids joined) for `model`, `dimensions` long. */
export function embed(model: string, input: string | readonly number[], dimensions: number): number[] {
  const key = typeof input === 'string' ? input : input.join(',');
  const next = random(seedOf(`${model}\n${key}`));
  const raw = Array.from({ length: dimensions }, () => next() * 2 - 1);
  const norm = Math.sqrt(raw.reduce((sum, v) => sum + v * v, 0)) || 1;
  return raw.map((v) => Math.fround(v / norm));
}

/** Float32 little-endian bytes in base64: OpenAI's `encoding_format: base64`. */
export function toBase64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
  return bytes.toString('base64');
}
