/** The `data` entries of an embeddings answer, in the two key orders vendors write them. */

type Vector = readonly number[] | string;

/** OpenAI's order: `object`, `index`, `embedding`. */
export const openAiEntries = (vectors: readonly Vector[]): Record<string, unknown>[] =>
  vectors.map((embedding, index) => ({ object: 'embedding', index, embedding }));

/** Alphabetical, as Google's and DashScope's compatible endpoints write them: `embedding`, `index`, `object`. */
export const sortedEntries = (vectors: readonly Vector[]): Record<string, unknown>[] =>
  vectors.map((embedding, index) => ({ embedding, index, object: 'embedding' }));
