/**
 * The plugin kit: everything a plugin under plugins/ may use of core, and the only module it imports
 * from it (a lint rule holds plugins to this). Each name comes from the one module that defines it, so
 * core can move its files without a plugin noticing.
 */

// Declaring a plugin: its manifest, and the tokens its constructor may inject.
export { definePlugin } from '../plugins/define-plugin';
export { UpstreamCallerToken } from '../plugins/di';
export { defineTaskProtocol } from '../tasks/define-task-protocol';

// What a plugin implements and is given.
export type {
  GatewayContext,
  ModelApi,
  ModelSpec,
  PollOutcome,
  PollPolicy,
  ResponseReader,
  StreamDialect,
  SubmitOutcome,
  TaskUpstream,
  UpstreamPlugin,
  UpstreamRequest,
} from '../plugins/plugin';

// The contract's errors.
export { Errors, type GatewayError } from '../errors';

// Reading JSON text and bodies without parsing them whole.
export {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COMMA,
  isJsonObject,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  stringEnd,
  withFirstMember,
  type JsonObject,
} from '../json';

// Usage and its estimates; the model table's limits.
export { estimateTokens, imageOptions, promptChars, tokenCount, type Usage } from '../usage';
export { checkCeiling, checkResolution, type ModelLimits } from '../routing/model-limits';

// Streams: events, and what the relay needs of a family.
export type { SseEvent } from '../sse';
export { DeferredCount } from '../proxy/deferred-count';
export { streamIsRelayed } from '../proxy/stream-relay';

// An upstream's options (base URL, credential, polling) and calls outside the proxy path.
export {
  authOptions,
  credentialHeaders,
  upstreamOptions,
  upstreamUrl,
  type UpstreamOptions,
} from '../upstream/upstream-options';
export { pollOptions, pollPolicy } from '../upstream/poll-options';
export {
  answerJson,
  isTransient,
  type UpstreamAnswer,
  type UpstreamCall,
  type UpstreamCaller,
} from '../upstream/upstream-call';

// Video tasks as the store keeps them.
export type { TaskParams, TaskUsage } from '../stores/video-task';
