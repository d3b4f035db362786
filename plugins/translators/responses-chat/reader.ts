/**
 * The reader a Responses client's request gets when a chat family serves it: the shared Responses
 * reader (responses-output/reader.ts) reading chat completions, whole or streamed.
 */
import type { ResponseReader } from '../../../core/kit/upstream';
import { ResponsesReader } from '../responses-output/reader';
import type { ResponseEcho } from '../responses-output/response-object';
import { responseFromCompletion } from './json-answer';
import { ChatStreamTranslator } from './stream';

export class ResponsesFromChatReader extends ResponsesReader {
  constructor(inner: ResponseReader, echo: ResponseEcho) {
    super(inner, new ChatStreamTranslator(echo), (body, usage) => responseFromCompletion(body, usage, echo));
  }
}
