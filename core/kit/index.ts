/**
 * The plugin kit: everything a plugin under plugins/ may use of core, and the only module it imports
 * from it (a lint rule holds plugins to this). Each name comes from the one module that defines it, so
 * core can move its files without a plugin noticing.
 */

// Declaring a plugin: its manifest, and the tokens its constructor may inject.
export { definePlugin } from '../plugins/define-plugin';
export { defineTaskProtocol } from '../plugins/define-task-protocol';
export { ConfigToken } from '../plugins/plugin-tokens';
export { UpstreamCallerToken } from '../upstream/upstream-call';
export { LoggerToken } from '../base/logger';

// The gateway's services a pipeline stage may be given, each with its token.
export { CatalogueToken, type Catalogue } from '../routing/catalogue';
export { ResilienceToken, type Resilience } from '../routing/resilience';
export { KeyServiceToken, type KeyService } from '../keys/key-service';
export { isExpired, type KeyRecord } from '../stores/key-store';
export type { TeamRecord } from '../stores/team-store';
export { TeamServiceToken, type TeamService } from '../teams/team-service';
export { UsageStoreToken, type UsageRecord, type UsageStore } from '../stores/usage-store';
export { PricingToken, type Pricing } from '../billing/pricing';
export { nextMonthStart } from '../billing/budget-period';
export {
  BudgetLedgerToken,
  type BudgetHold,
  type BudgetLedger,
  type BudgetSubject,
} from '../billing/budget-ledger';
export { KeptStateToken, type KeptState } from '../reload/kept-state';
export { TASK_STORED } from '../tasks/submission';

// Redis, when configured: the link, the instances sharing it, and its scripts.
export { RedisToken, type RedisLink } from '../redis/redis-link';
export { LiveInstancesToken, type LiveInstances } from '../redis/live-instances';
export { RedisScript } from '../redis/redis-script';

// What a plugin implements and is given.
export { StateKey } from '../contracts/state-key';
export type { GatewayContext, StageAnswer, StageTrace } from '../contracts/context';
export type { FamilyRequest } from '../contracts/family-request';
export type { EventFilter, JsonAnswer, Middleware, Next, StreamControl } from '../contracts/stage';
export type { FinishReasons, GenAiFacts, ModelApi, ModelSpec, StreamDialect } from '../contracts/api';
export type {
  ClientEvents,
  RelayingReader,
  ResponseReader,
  StreamSkim,
  TranslatingReader,
  VendorError,
} from '../contracts/reader';
export type { UpstreamPlugin, UpstreamRequest } from '../contracts/upstream';
export type { PollOutcome, PollPolicy, SubmitOutcome, TaskUpstream } from '../contracts/task-upstream';
export type { ApiTranslator } from '../contracts/translator';

// A stage's I/O as a span of the request's trace, when it is traced.
export { traced } from '../observability/tracing/traced';

// Readers that wrap another reader read its answers as lists.
export { eventsOf } from '../contracts/client-events';

// The contract's errors, and the default mapping of a vendor's error body to them.
export { Errors, type GatewayError } from '../base/errors';
export { contractErrorBody } from '../proxy/error-body';

// Model-name patterns (`model-*`), as gateway.yaml writes them.
export { globMatch } from '../base/glob';

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
} from '../base/json';

// Usage and its estimates; the model table's limits.
export {
  estimateTokens,
  imageOptions,
  NO_USAGE,
  promptChars,
  tokenCount,
  type Usage,
} from '../contracts/usage';
export { checkCeiling, checkResolution, type ModelLimits } from '../contracts/model-limits';

// Streams: events, and what the relay needs of a family.
export type { SseEvent } from '../base/sse';
export { DeferredCount } from '../proxy/deferred-count';
export { RELAY_POLICY, streamIsRelayed, type RelayPolicy } from '../proxy/stream-relay';

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
