import type { EmbeddingsDialect } from '../embeddings/dialect';
import { sortedEntries } from '../embeddings/entries';

/**
 * Gemini's OpenAI-compatible embeddings (docs/upstreams.md#modelb): text only, up to 100 inputs (one
 * BatchEmbedContentsRequest), 3,072 dimensions by default and 128 to 3,072 asked; floats only, and no
 * `usage` (the Gemini API counts no tokens for embeddings). Keys in Google's alphabetical order.
 */
export const modelbEmbeddings: EmbeddingsDialect = {
  path: '/v1beta/openai/embeddings',
  models: { 'modelb-embedding-001': { defaultDimensions: 3072, dimensions: { from: 128, to: 3072 } } },
  takesTokens: false,
  base64: false,
  maxInputs: 100,
  invalidCode: 'invalid_value',
  body: (a) => ({ data: sortedEntries(a.vectors), model: a.model, object: 'list' }),
};
