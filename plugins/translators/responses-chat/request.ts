/**
 * A Responses request as a chat completions request: validated against the Responses API's rules and
 * this translation's fields (400 naming the client's field), then each field by its rule
 * (request-fields.ts) and the conversation by input-items.ts. The result is a chat body that the chat
 * family validates and prepares as it would a chat client's.
 *
 * Stream usage is not asked here: the contract's table lets only some families take `stream_options`,
 * and every chat family asks its upstream for usage itself when the stream is relayed (which a
 * translated stream is), then records it before taking the usage chunk out; the reader reads it from
 * the family's reader.
 */
import type { JsonObject } from '../../../core/kit/json';
import type { ModelSpec } from '../../../core/kit/upstream';
import { translateFields } from '../responses-output/request-rules';
import { chatMessages } from './input-items';
import { RESPONSES_CHAT_FIELDS, TO_CHAT } from './request-fields';

/** The chat completions body for a Responses `body` sent to `model`; throws the 400 naming a field. */
export const chatBodyForResponses = (body: JsonObject, model: ModelSpec): JsonObject =>
  translateFields(body, TO_CHAT, RESPONSES_CHAT_FIELDS, model, () => ({
    model: body.model ?? model.id,
    messages: chatMessages(body, model.id),
  }));
