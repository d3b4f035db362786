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
import { Errors, type JsonObject, type ModelSpec } from '../../../core/kit';
import { validateResponsesRequest } from '../../apis/responses';
import { chatMessages } from './input-items';
import { RESPONSES_CHAT_FIELDS, ruleOf } from './request-fields';

/** Members read apart from the field rules: the model routes the request (and is the chat body's). */
const ROUTING = 'model';

/** The chat completions body for a Responses `body` sent to `model`; throws the 400 naming a field. */
export function chatBodyForResponses(body: JsonObject, model: ModelSpec): JsonObject {
  validateResponsesRequest(body, RESPONSES_CHAT_FIELDS, model.id, model.limits);
  const chat: JsonObject = { model: body.model ?? model.id, messages: chatMessages(body, model.id) };
  for (const [field, value] of Object.entries(body)) {
    if (value == null || field === ROUTING) continue;
    const rule = ruleOf(field);
    // A field outside the table, the API's or any other, has no chat counterpart.
    if (!rule) throw Errors.unsupportedField(field, model.id);
    rule(value, chat, model.id);
  }
  return chat;
}
