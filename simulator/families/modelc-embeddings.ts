import type { EmbeddingsDialect } from '../embeddings/dialect';
import { sortedEntries } from '../embeddings/entries';
import { newUuidTaskId } from '../ids';

/**
 * DashScope's compatible-mode embeddings (docs/upstreams.md#modelc): a string or strings, up to 10;
 * text-embedding-v4's eight sizes, 1,024 by default; `encoding_format` only float; `usage` and an `id`
 * (a bare UUID) after the body, in the order of DashScope's reference.
 */
export const modelcEmbeddings: EmbeddingsDialect = {
  path: '/compatible-mode/v1/embeddings',
  models: {
    'modelc-embedding-v4': {
      defaultDimensions: 1024,
      dimensions: { oneOf: [2048, 1536, 1024, 768, 512, 256, 128, 64] },
    },
  },
  takesTokens: false,
  base64: false,
  maxInputs: 10,
  invalidCode: 'invalid_parameter_error',
  body: (a) => ({
    data: sortedEntries(a.vectors),
    model: a.model,
    object: 'list',
    usage: { prompt_tokens: a.promptTokens, total_tokens: a.promptTokens },
    id: newUuidTaskId(),
  }),
};
