/**
 * The translator between OpenAI's Responses API (the client's) and chat completions (the family's):
 * `chatBodyForResponses` turns the client's Responses body into the chat body the family prepares, and
 * `responsesFromChat` wraps the family's reader so the client gets Responses answers; `ResponsesToChat`
 * registers the pair, so `POST /v1/responses` is served wherever a chat-completions model is.
 */
import { definePlugin } from '../../../core/kit/plugin';
import type { ApiTranslator, ModelSpec, ResponseReader } from '../../../core/kit/upstream';
import type { JsonObject } from '../../../core/kit/json';
import { ChatCompletionsApi } from '../../apis/chat-completions';
import { ResponsesApi } from '../../apis/responses';
import { echoOf } from '../responses-output/response-object';
import { responsesFieldMessage } from './field-names';
import { ResponsesFromChatReader } from './reader';
import { chatBodyForResponses } from './request';

export { chatBodyForResponses } from './request';
export { responsesFieldMessage, responsesFieldName } from './field-names';
export { ResponsesFromChatReader } from './reader';

/** The reader for a Responses request (`clientBody`, as validated) served by a chat family's `inner` reader. */
export const responsesFromChat = (
  inner: ResponseReader,
  clientBody: JsonObject,
  model: ModelSpec,
): ResponsesFromChatReader => new ResponsesFromChatReader(inner, echoOf(clientBody, model));

/** Serves OpenAI's Responses API on every chat-completions model whose family does not serve it itself. */
@definePlugin({ kind: 'api-translator', name: 'responses-to-chat' })
export class ResponsesToChat implements ApiTranslator {
  readonly from = ResponsesApi;
  readonly to = ChatCompletionsApi;

  request(body: JsonObject, model: ModelSpec): JsonObject {
    return chatBodyForResponses(body, model);
  }

  reader(inner: ResponseReader, body: JsonObject, model: ModelSpec): ResponsesFromChatReader {
    return responsesFromChat(inner, body, model);
  }

  clientMessage(message: string): string {
    return responsesFieldMessage(message);
  }
}
