import { batchRoutes } from '../batches/routes';
import type { ChatDialect } from '../chat/dialect';
import { openAiError, type OpenAiErrorCatalog } from './openai-error';
import { chatAnswer, chatFamily } from '../chat/handler';
import { withRoutes, type Family } from '../family';
import { filesRoutes } from '../files/routes';
import { embeddingsAnswer, embeddingsRoute } from '../embeddings/handler';
import { modelaEmbeddings } from './modela-embeddings';
import { responsesAnswer, responsesRoute } from '../responses/handler';

// Messages from OpenAI's error-code guide; types and codes as the API sends them.
const ERRORS: OpenAiErrorCatalog = {
  400: { message: 'Invalid request.', type: 'invalid_request_error', code: null },
  401: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
  403: {
    message: 'Country, region, or territory not supported',
    type: 'request_forbidden',
    code: 'unsupported_country_region_territory',
  },
  404: {
    message: 'The model does not exist or you do not have access to it.',
    type: 'invalid_request_error',
    code: 'model_not_found',
  },
  413: { message: 'Request too large.', type: 'invalid_request_error', code: null },
  429: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' },
  500: {
    message: 'The server had an error while processing your request. Sorry about that!',
    type: 'server_error',
    code: null,
  },
  503: {
    message: 'The engine is currently overloaded, please try again later.',
    type: 'server_error',
    code: null,
  },
};

/**
 * `modela`: OpenAI Chat Completions (docs/upstreams.md#modela). Usage streams only with
 * `stream_options.include_usage`, and then every other chunk carries `"usage": null`.
 */
export const modela: ChatDialect = {
  name: 'modela',
  mount: '/modela',
  chatPath: '/v1/chat/completions',
  defaultKey: 'sim-modela-key',
  requestIdHeader: 'x-request-id',
  envelopeExtras: { service_tier: 'default', system_fingerprint: 'fp_sim0001' },
  messageExtras: { refusal: null, annotations: [] },
  logprobs: true,
  errorBody: (err) => ({ error: openAiError(ERRORS, err) }),
  usage: (t) => ({
    prompt_tokens: t.prompt,
    completion_tokens: t.completion,
    total_tokens: t.prompt + t.completion,
    prompt_tokens_details: { cached_tokens: t.cached, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: t.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  }),
  streamUsage: (req) => ({
    nullOnChunks: req.includeUsage,
    usageChunk: req.includeUsage,
    onLastFinish: false,
  }),
  reasoningTokens: () => 0,
  validate: () => undefined,
};

/**
 * What the simulator serves for modela (found on disk by index.ts): its chat, its own Responses API, its
 * embeddings, and the Files and Batch APIs, whose lines the three endpoints' own answers answer.
 */
export const family: Family = withRoutes(chatFamily(modela), {
  ...responsesRoute((err) => openAiError(ERRORS, err)),
  ...embeddingsRoute(modelaEmbeddings),
  ...filesRoutes,
  ...batchRoutes({
    '/v1/chat/completions': chatAnswer(modela),
    '/v1/embeddings': embeddingsAnswer(modelaEmbeddings),
    '/v1/responses': responsesAnswer,
  }),
});
