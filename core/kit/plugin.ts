/**
 * What every plugin uses, whatever its kind: its declaration, the configuration and logger it may be
 * given, the contract's errors, the request as plugins see it, and usage. Plugins import core only from
 * the kit's modules (a lint rule holds them to it); each name comes from the one module that defines it,
 * so core can move its files without a plugin noticing.
 */
export { definePlugin } from '../plugins/define-plugin';
export { ConfigToken } from '../plugins/plugin-tokens';
export { LoggerToken } from '../base/logger';
export type { GatewayConfig } from '../../config/schema';
export { ConfigError } from '../../config/errors';
export { duration, size } from '../../config/units';
// Whether a URL in a plugin's options could ever answer (an http(s) URL with a real host, no credentials).
export { urlProblem } from '../../config/reachable-url';
// What a guardrail may be named, as keys and teams name the ones they opt into.
export { guardrailName } from '../../config/guardrail-names';
// What a key's or team's list of MCP tools may hold (`search__*`), for what reads or checks such lists.
export { toolGlob, toolGlobs } from '../../config/tool-globs';
export { Errors, GatewayError } from '../base/errors';
export { StateKey } from '../contracts/state-key';
export type { GatewayContext, GuardrailAction } from '../contracts/context';
export type { FamilyRequest } from '../contracts/family-request';
export { JsonEvent, type SseEvent } from '../base/sse';
export type { ClientEvents } from '../contracts/reader';
export { eventsOf } from '../contracts/client-events';
export { NO_USAGE, recordCounts, type RecordCounts, type Usage } from '../contracts/usage';
// Model-name patterns (`model-*`), as gateway.yaml writes them.
export { globMatch, globMatcher } from '../base/glob';
export { PatternTable } from '../base/pattern-table';
export { boundedEntries } from '../base/lookup-cache';
// A plugin's I/O as a span of the request's trace, when it is traced.
export { traced, tracedCall } from '../observability/tracing/traced';
