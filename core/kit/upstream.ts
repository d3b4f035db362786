/**
 * Upstream families, client APIs and translators: what a family implements (its models, `prepare`, its
 * reader), the APIs it serves, an upstream's options and calls, and usage estimates.
 */
export type {
  EndpointInfo,
  FinishReasons,
  GenAiFacts,
  ModelApi,
  ModelSpec,
  StreamDialect,
} from '../contracts/api';
export type { UpstreamPlugin, UpstreamRequest } from '../contracts/upstream';
export type {
  RelayingReader,
  ResponseReader,
  StreamSkim,
  TranslatingReader,
  VendorError,
} from '../contracts/reader';
export type { ApiTranslator } from '../contracts/translator';

// The default mapping of a vendor's error body to the contract's.
export { contractErrorBody } from '../proxy/error-body';

// The chat API's stream events, as a translating reader writes them for its client.
export {
  CHAT_DONE,
  chatChunk,
  chatErrorEvent,
  chatUsage,
  chatUsageChunk,
  type ChatAnswerHead,
} from '../contracts/chat-events';

// The Responses API's usage, as a translator or a stage that ends a stream writes it.
export { responsesUsage, responsesUsageJson } from '../contracts/responses-usage';

// Usage estimates; the model table's limits.
export { estimateTokens, imageOptions, promptChars, tokenCount } from '../contracts/usage';
export { checkCeiling, checkResolution, type ModelLimits } from '../contracts/model-limits';

// Streams: what the relay needs of a family.
export { DeferredCount } from '../proxy/deferred-count';

// An upstream's options (base URL, credential); calls outside the proxy path are in ./vendor-calls.
export {
  authOptions,
  credentialHeaders,
  upstreamOptions,
  upstreamUrl,
  type UpstreamOptions,
} from '../upstream/upstream-options';
