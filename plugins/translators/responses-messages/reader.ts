/**
 * The reader a Responses client's request gets when a messages family serves it: the shared Responses
 * reader (responses-output/reader.ts) reading messages, whole or streamed, around the family's reader,
 * which meters the usage.
 */
import type { JsonObject } from '../../../core/kit/json';
import type { ModelSpec, ResponseReader } from '../../../core/kit/upstream';
import { ResponsesReader } from '../responses-output/reader';
import { includesSealedReasoning } from '../responses-output/request-rules';
import { echoOf, type ResponseEcho } from '../responses-output/response-object';
import { responseFromMessage } from './json-answer';
import { MessagesStreamTranslator } from './stream';

export class ResponsesFromMessagesReader extends ResponsesReader {
  /** `sealed`: whether the client asked for the thinking's signature (`reasoning.encrypted_content`). */
  constructor(inner: ResponseReader, echo: ResponseEcho, sealed: boolean) {
    super(inner, new MessagesStreamTranslator(echo, sealed), (body, usage) =>
      responseFromMessage(body, usage, echo, sealed),
    );
  }
}

/** The reader for a Responses request (`clientBody`, as validated) served by a messages family's `inner` reader. */
export const responsesFromMessages = (
  inner: ResponseReader,
  clientBody: JsonObject,
  model: ModelSpec,
): ResponsesFromMessagesReader =>
  new ResponsesFromMessagesReader(inner, echoOf(clientBody, model), includesSealedReasoning(clientBody));
