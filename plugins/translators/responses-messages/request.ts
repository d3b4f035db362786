/**
 * A Responses request as a messages request: validated against the Responses API's rules and this
 * translation's fields (400 naming the client's field), then each field by its rule (request-fields.ts)
 * and the conversation by input-items.ts. The result is a messages body that the messages family
 * validates and prepares as it would a messages client's.
 */
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import type { ModelSpec } from '../../../core/kit/upstream';
import { translateFields } from '../responses-output/request-rules';
import { messagesConversation } from './input-items';
import { RESPONSES_MESSAGES_FIELDS, TO_MESSAGES } from './request-fields';
import { thinkingFor } from './thinking';
import { disableParallelCalls } from './tools';

/**
 * `max_tokens` when the client set no `max_output_tokens`: messages requires one, Responses does not
 * (its answer runs to the model's own ceiling). The model's output ceiling, as the family declares it,
 * asks the same; 4096, a common ceiling of messages models, where the family declares none.
 */
const DEFAULT_MAX_TOKENS = 4096;

/** The messages body for a Responses `body` sent to `model`; throws the 400 naming a field. */
export function messagesBodyForResponses(body: JsonObject, model: ModelSpec): JsonObject {
  const target = translateFields(body, TO_MESSAGES, RESPONSES_MESSAGES_FIELDS, model, () => ({
    model: body.model ?? model.id,
    max_tokens: model.limits?.max_output_tokens ?? DEFAULT_MAX_TOKENS,
    ...messagesConversation(body, model.id),
  }));
  const effort = isJsonObject(body.reasoning) ? body.reasoning.effort : undefined;
  if (effort != null) {
    const thinking = thinkingFor(effort, Number(target.max_tokens), model.id);
    if (thinking) target.thinking = thinking;
  }
  if (body.parallel_tool_calls === false) disableParallelCalls(target);
  return target;
}
