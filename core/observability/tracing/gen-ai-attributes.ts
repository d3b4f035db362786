/**
 * The span attributes OpenTelemetry's GenAI conventions define, read from what the gateway knows of a
 * call: the route target, the client's body and the usage read. Names come from the conventions'
 * package; its GenAI part is still incubating, which is why the version is pinned. Each function adds to
 * the attributes a span is given at once (one `setAttributes`: the SDK checks each call's attributes).
 */
import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_STREAM,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
} from '@opentelemetry/semantic-conventions/incubating';
import type { JsonObject } from '../../base/json';
import type { GenAiFacts, ModelSpec } from '../../contracts/api';
import type { Usage } from '../../contracts/usage';

/**
 * What a call is: the operation, whose model (the family's vendor, as its model table names it), the
 * model asked for and the one that answered (another after a fallback).
 */
export function addCall(
  out: Attributes,
  facts: GenAiFacts,
  served: ModelSpec,
  requested: string,
  responded: string,
): void {
  out[ATTR_GEN_AI_OPERATION_NAME] = facts.operation;
  out[ATTR_GEN_AI_PROVIDER_NAME] = served.ownedBy;
  out[ATTR_GEN_AI_REQUEST_MODEL] = requested;
  out[ATTR_GEN_AI_RESPONSE_MODEL] = responded;
}

/** What the client's body asks: the output ceiling and whether to stream; its prompt only if `content`. */
export function requestAttributes(body: JsonObject, facts: GenAiFacts, content: boolean): Attributes {
  const out: Attributes = {};
  const ceiling = facts.maxTokens?.map((field) => body[field]).find((value) => typeof value === 'number');
  if (typeof ceiling === 'number') out[ATTR_GEN_AI_REQUEST_MAX_TOKENS] = ceiling;
  if (typeof body.stream === 'boolean') out[ATTR_GEN_AI_REQUEST_STREAM] = body.stream;
  const input = facts.input === undefined ? undefined : body[facts.input];
  if (content && input !== undefined) out[ATTR_GEN_AI_INPUT_MESSAGES] = JSON.stringify(input);
  return out;
}

/** The usage read, in the conventions' terms; cache and reasoning counts where the vendor gave them. */
export function addUsage(out: Attributes, usage: Usage): void {
  out[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = usage.promptTokens;
  out[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = usage.completionTokens;
  out['gateway.usage.estimated'] = usage.estimated;
  if (usage.cacheReadTokens !== undefined)
    out[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined)
    out[ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] = usage.cacheWriteTokens;
  if (usage.reasoningTokens !== undefined)
    out[ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = usage.reasoningTokens;
}
