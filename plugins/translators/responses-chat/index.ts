/**
 * The translator between OpenAI's Responses API (the client's) and chat completions (the family's):
 * `chatBodyForResponses` turns the client's Responses body into the chat body the family prepares, and
 * `responsesFromChat` wraps the family's reader so the client gets Responses answers.
 */
import type { JsonObject, ModelSpec, ResponseReader } from '../../../core/kit';
import { ResponsesFromChatReader } from './reader';
import { responseEcho } from './response-object';

export { chatBodyForResponses } from './request';
export { responsesFieldMessage, responsesFieldName } from './field-names';
export { ResponsesFromChatReader } from './reader';

/** The client's model: the one its body names, which routed it to `model`. */
const clientModel = (body: JsonObject, model: ModelSpec): string =>
  typeof body.model === 'string' ? body.model : model.id;

/** The reader for a Responses request (`clientBody`, as validated) served by a chat family's `inner` reader. */
export const responsesFromChat = (
  inner: ResponseReader,
  clientBody: JsonObject,
  model: ModelSpec,
): ResponsesFromChatReader =>
  new ResponsesFromChatReader(inner, responseEcho(clientBody, clientModel(clientBody, model)));
