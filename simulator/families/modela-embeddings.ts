import type { EmbeddingsDialect } from '../embeddings/dialect';
import { openAiEntries } from '../embeddings/entries';

/**
 * OpenAI's Embeddings API (docs/upstreams.md#modela): every input form, base64 answered, up to 2,048
 * inputs, `usage` with `prompt_tokens` and `total_tokens`.
 */
export const modelaEmbeddings: EmbeddingsDialect = {
  path: '/v1/embeddings',
  models: {
    'modela-embedding-3-small': { defaultDimensions: 1536, dimensions: { from: 1, to: 1536 } },
    'modela-embedding-3-large': { defaultDimensions: 3072, dimensions: { from: 1, to: 3072 } },
  },
  takesTokens: true,
  base64: true,
  maxInputs: 2048,
  invalidCode: 'invalid_value',
  body: (a) => ({
    object: 'list',
    data: openAiEntries(a.vectors),
    model: a.model,
    usage: { prompt_tokens: a.promptTokens, total_tokens: a.promptTokens },
  }),
};
