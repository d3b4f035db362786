/**
 * The translator between OpenAI's Responses API (the client's) and the messages API (the family's):
 * `messagesBodyForResponses` turns the client's Responses body into the messages body the family
 * prepares, and `responsesFromMessages` wraps the family's reader so the client gets Responses answers;
 * `ResponsesToMessages` registers the pair, so `POST /v1/responses` is served wherever a messages model
 * is. The Responses side is written by the code the chat translator shares (responses-output/).
 */
import { definePlugin } from '../../../core/kit/plugin';
import type { ApiTranslator } from '../../../core/kit/upstream';
import { MESSAGES_VERSION, MESSAGES_VERSION_HEADER, MessagesApi } from '../../apis/messages';
import { ResponsesApi } from '../../apis/responses';
import { responsesFieldMessage } from './field-names';
import { responsesFromMessages } from './reader';
import { messagesBodyForResponses } from './request';

export { messagesBodyForResponses } from './request';
export { responsesFieldMessage, responsesFieldName } from './field-names';
export { responsesFromMessages, ResponsesFromMessagesReader } from './reader';

/** Serves OpenAI's Responses API on every messages model whose family does not serve it itself. */
@definePlugin({ kind: 'api-translator', name: 'responses-to-messages' })
export class ResponsesToMessages implements ApiTranslator {
  readonly from = ResponsesApi;
  readonly to = MessagesApi;
  /** The messages API's version header, which a Responses client does not send. */
  readonly headers = { [MESSAGES_VERSION_HEADER]: MESSAGES_VERSION };

  readonly request = messagesBodyForResponses;
  readonly reader = responsesFromMessages;
  readonly clientMessage = responsesFieldMessage;
}
