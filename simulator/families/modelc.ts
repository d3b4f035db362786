import type { ChatDialect } from '../chat/dialect';
import type { ChatRequest } from '../chat/request';
import { newCompletionId } from '../ids';
import { SimErrors, type SimError } from '../sim-error';
import { openAiError, type OpenAiErrorCatalog } from './openai-error';
import { chatFamily } from '../chat/handler';
import { withRoutes, type Family } from '../family';
import { embeddingsRoute } from '../embeddings/handler';
import { modelcEmbeddings } from './modelc-embeddings';

// DashScope compatible-mode codes; its `code` carries what OpenAI splits over type and code.
const ERRORS: OpenAiErrorCatalog = {
  400: { message: 'Invalid parameter.', type: 'invalid_request_error', code: 'invalid_parameter_error' },
  401: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { message: 'Access denied.', type: 'invalid_request_error', code: 'access_denied' },
  404: {
    message: 'The model does not exist or you do not have access to it.',
    type: 'invalid_request_error',
    code: 'model_not_found',
  },
  413: { message: 'Request too large.', type: 'invalid_request_error', code: 'invalid_parameter_error' },
  429: {
    message: 'Requests rate limit exceeded, please try again later.',
    type: 'limit_requests',
    code: 'limit_requests',
  },
  500: {
    message: 'An internal error has occured, please try again later or contact service support.',
    type: 'internal_error',
    code: 'internal_error',
  },
  503: {
    message: 'The service is temporarily unavailable.',
    type: 'internal_error',
    code: 'ServiceUnavailable',
  },
};

function errorBody(err: SimError, simId: string): unknown {
  return { error: openAiError(ERRORS, err, true), id: newCompletionId(), request_id: simId };
}

const thinks = (req: ChatRequest): boolean => req.body.enable_thinking === true;

/** Reasoning tokens per choice: as many as content tokens, capped by `thinking_budget`. */
function reasoningTokens(req: ChatRequest, tokens: number): number {
  if (!thinks(req)) return 0;
  const budget = req.body.thinking_budget;
  return typeof budget === 'number' && budget >= 0 ? Math.min(tokens, Math.floor(budget)) : tokens;
}

function validate(req: ChatRequest): void {
  if (thinks(req) && !req.stream) {
    throw SimErrors.invalidParam(
      'enable_thinking',
      'parameter.enable_thinking must be set to false for non-streaming calls',
      'invalid_parameter_error',
    );
  }
}

/**
 * `modelc`: DashScope OpenAI-compatible mode (docs/upstreams.md#modelc). Every chunk carries
 * `"usage": null` except the `choices: []` usage chunk sent with `include_usage`;
 * `enable_thinking` streams `reasoning_content` first and is refused without `stream`.
 */
export const modelc: ChatDialect = {
  name: 'modelc',
  mount: '/modelc',
  chatPath: '/compatible-mode/v1/chat/completions',
  defaultKey: 'sim-modelc-key',
  requestIdHeader: 'x-request-id',
  envelopeExtras: { system_fingerprint: null },
  messageExtras: {},
  logprobs: true,
  errorBody,
  usage: (t) => ({
    prompt_tokens: t.prompt,
    completion_tokens: t.completion,
    total_tokens: t.prompt + t.completion,
    prompt_tokens_details: { cached_tokens: t.cached },
    completion_tokens_details: { reasoning_tokens: t.reasoning },
  }),
  streamUsage: (req) => ({ nullOnChunks: true, usageChunk: req.includeUsage, onLastFinish: false }),
  reasoningTokens,
  validate,
};

/** What the simulator serves for modelc (found on disk by index.ts): its chat and its embeddings. */
export const family: Family = withRoutes(chatFamily(modelc), embeddingsRoute(modelcEmbeddings));
