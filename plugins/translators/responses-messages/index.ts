/**
 * The translator between OpenAI's Responses API (the client's) and the messages API (the family's):
 * `messagesBodyForResponses` turns the client's Responses body into the messages body the family
 * prepares, and `responsesFromMessages` wraps the family's reader so the client gets Responses answers;
 * `ResponsesToMessages` registers the pair, so `POST /v1/responses` is served wherever a messages model
 * is. The Responses side is written by the code the chat translator shares (responses-output/).
 */
import {
  definePlugin,
  type ApiTranslator,
  type JsonObject,
  type ModelSpec,
  type ResponseReader,
} from '../../../core/kit';
import { MESSAGES_VERSION, MESSAGES_VERSION_HEADER, MessagesApi } from '../../apis/messages';
import { ResponsesApi } from '../../apis/responses';
import { includesSealedReasoning } from '../responses-output/request-rules';
import { echoOf } from '../responses-output/response-object';
import { responsesFieldMessage } from './field-names';
import { ResponsesFromMessagesReader } from './reader';
import { messagesBodyForResponses } from './request';

export { messagesBodyForResponses } from './request';
export { responsesFieldMessage, responsesFieldName } from './field-names';
export { ResponsesFromMessagesReader } from './reader';

/** The reader for a Responses request (`clientBody`, as validated) served by a messages family's `inner` reader. */
export const responsesFromMessages = (
  inner: ResponseReader,
  clientBody: JsonObject,
  model: ModelSpec,
): ResponsesFromMessagesReader =>
  new ResponsesFromMessagesReader(inner, echoOf(clientBody, model), includesSealedReasoning(clientBody));

/** Serves OpenAI's Responses API on every messages model whose family does not serve it itself. */
@definePlugin({ kind: 'api-translator', name: 'responses-to-messages' })
export class ResponsesToMessages implements ApiTranslator {
  readonly from = ResponsesApi;
  readonly to = MessagesApi;
  /** The messages API's version header, which a Responses client does not send. */
  readonly headers = { [MESSAGES_VERSION_HEADER]: MESSAGES_VERSION };

  request(body: JsonObject, model: ModelSpec): JsonObject {
    return messagesBodyForResponses(body, model);
  }

  reader(inner: ResponseReader, body: JsonObject, model: ModelSpec): ResponsesFromMessagesReader {
    return responsesFromMessages(inner, body, model);
  }

  clientMessage(message: string): string {
    return responsesFieldMessage(message);
  }
}
