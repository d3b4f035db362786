import type { ChatDialect } from '../chat/dialect';
import type { ChatRequest } from '../chat/request';
import { withRoutes, type Family, type RouteHandler } from '../family';
import { handleImageGeneration } from '../images/handler';
import { type SimError, statusDefaults, type StatusCatalog } from '../sim-error';
import { chatFamily } from '../chat/handler';
import { embeddingsRoute } from '../embeddings/handler';
import { modelbEmbeddings } from './modelb-embeddings';

/** Google RPC status word and default message per HTTP status. */
interface RpcDefaults {
  readonly status: string;
  readonly message: string;
}

const INVALID: RpcDefaults = { status: 'INVALID_ARGUMENT', message: 'Request contains an invalid argument.' };
const INTERNAL: RpcDefaults = {
  status: 'INTERNAL',
  message: 'An internal error has occurred. Please retry or report the issue.',
};

// The canonical google.rpc codes for each HTTP status, with the messages the Gemini API sends.
const ERRORS: StatusCatalog<RpcDefaults> = {
  400: INVALID,
  401: { status: 'UNAUTHENTICATED', message: 'API key not valid. Please pass a valid API key.' },
  403: { status: 'PERMISSION_DENIED', message: 'The caller does not have permission' },
  404: { status: 'NOT_FOUND', message: 'Requested entity was not found.' },
  409: { status: 'ABORTED', message: 'The operation was aborted.' },
  413: { status: 'INVALID_ARGUMENT', message: 'Request payload size exceeds the limit.' },
  429: { status: 'RESOURCE_EXHAUSTED', message: 'Resource has been exhausted (e.g. check quota).' },
  499: { status: 'CANCELLED', message: 'The operation was cancelled.' },
  500: INTERNAL,
  503: { status: 'UNAVAILABLE', message: 'The model is overloaded. Please try again later.' },
  504: { status: 'DEADLINE_EXCEEDED', message: 'The request timed out. Please try again.' },
};

function errorBody(err: SimError): unknown {
  const d = statusDefaults(ERRORS, err.status);
  return { error: { code: err.status, message: err.detail.message ?? d.message, status: d.status } };
}

/** Thought tokens per choice by `reasoning_effort`; the Gemini 3 models think even when it is left out. */
const THOUGHTS: Readonly<Record<string, number>> = { low: 16, medium: 48, high: 96 };

/** Hidden thinking of the whole reply: the model thinks, and returns none of its thoughts. */
function thoughtTokens(req: ChatRequest): number {
  const effort = req.body.reasoning_effort;
  return (
    req.n *
    (typeof effort === 'string' && Object.hasOwn(THOUGHTS, effort) ? THOUGHTS[effort]! : THOUGHTS.medium!)
  );
}

/**
 * `modelb`: Gemini's OpenAI-compatible endpoint (docs/upstreams.md#modelb). Streams carry usage only when asked
 * with `stream_options.include_usage` (as every capture of the vendor's was made), on the last finish
 * chunk, not in a chunk of its own. Its thinking shows only in `total_tokens`. Errors use the
 * google.rpc shape `{error:{code,message,status}}`.
 */
export const modelb: ChatDialect = {
  name: 'modelb',
  mount: '/modelb',
  chatPath: '/v1beta/openai/chat/completions',
  defaultKey: 'sim-modelb-key',
  requestIdHeader: 'x-request-id',
  envelopeExtras: {},
  messageExtras: {},
  logprobs: false,
  errorBody,
  // Thinking is left out of completion_tokens but counted in total_tokens (and billed as output).
  // Cached tokens are reported only when there are some, so an uncached answer keeps the captured shape.
  usage: (t, req) => ({
    prompt_tokens: t.prompt,
    completion_tokens: t.completion,
    total_tokens: t.prompt + t.completion + thoughtTokens(req),
    ...(t.cached > 0 ? { prompt_tokens_details: { cached_tokens: t.cached } } : {}),
  }),
  streamUsage: (req) => ({ nullOnChunks: false, usageChunk: false, onLastFinish: req.includeUsage }),
  reasoningTokens: () => 0,
  validate: () => undefined,
};

/** What modelb serves besides chat: OpenAI-style image generation on the same base (docs/upstreams.md#modelb-image). */
export const modelbImageRoutes: Readonly<Record<string, RouteHandler>> = {
  'POST /v1beta/openai/images/generations': handleImageGeneration,
};

/** What the simulator serves for modelb: its chat, its image generation and its embeddings. */
export const family: Family = withRoutes(chatFamily(modelb), {
  ...modelbImageRoutes,
  ...embeddingsRoute(modelbEmbeddings),
});
