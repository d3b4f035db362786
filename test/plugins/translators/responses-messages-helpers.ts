/**
 * Shared by the Responses-on-messages translation tests: a messages model, and recorded messages
 * answers run through the messages family's own reader and the translation around it, as the endpoint
 * wires them.
 */
import type { JsonObject } from '../../../core/kit/json';
import type { ModelSpec } from '../../../core/kit/upstream';
import type { SseEvent } from '../../../core/kit/plugin';
import { MessagesApi } from '../../../plugins/apis/messages';
import { MessagesResponseReader } from '../../../plugins/upstreams/modeld/messages-reader';
import {
  responsesFromMessages,
  type ResponsesFromMessagesReader,
} from '../../../plugins/translators/responses-messages';
import { parseSse } from '../../helpers/http';
import { fixtureText, payloads, runStream, testModel } from './responses-helpers';

export const MESSAGES_MODEL: ModelSpec = testModel('modeld-sonnet-4-6', MessagesApi, 64_000);

/** A recorded messages stream's events (a recording without a final newline still ends its last event). */
export const messagesEvents = (file: string): SseEvent[] => parseSse(`${fixtureText(file)}\n\n`);

/** The translation's reader around the family's, for a client that sent `body`. */
export const messagesReader = (
  body: JsonObject = { model: MESSAGES_MODEL.id, input: 'hi' },
  promptTokens = 3,
): ResponsesFromMessagesReader =>
  responsesFromMessages(new MessagesResponseReader(() => promptTokens), body, MESSAGES_MODEL);

/** Runs `events` through the family's reader and the translation, for a client that sent `body`. */
export const translateMessagesStream = (
  events: readonly SseEvent[],
  body: JsonObject = { model: MESSAGES_MODEL.id, input: 'hi', stream: true },
) => runStream(messagesReader(body), events);

/** A recorded stream (`file` under test/) translated, with the payloads the client got. */
export function translateRecorded(file: string, body?: JsonObject) {
  const { reader, events } = translateMessagesStream(messagesEvents(file), body);
  return { reader, events, data: payloads(events) };
}
