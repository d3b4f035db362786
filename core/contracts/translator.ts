/** A translator: serves one client API on the models of another. */
import type { JsonObject } from '../base/json';
import type { ModelApi, ModelSpec } from './api';
import type { ResponseReader, TranslatingReader } from './reader';

/**
 * Serves a client API on the models of another, as one translator per pair of schemas (Responses on a
 * chat-completions model, say): the client's body is translated to the model's API and handed to the
 * model's own family, whose reader is wrapped so the client gets its own API's answers. Core knows no
 * API or vendor here; translators are plugins (plugins/translators/).
 */
export interface ApiTranslator {
  /** The API the client speaks. */
  readonly from: ModelApi;
  /** The API of the models it serves it on. */
  readonly to: ModelApi;
  /**
   * The client's body in the model's API, for `model`. Throws a 400 GatewayError naming a field the
   * target cannot honour: never a silent drop.
   */
  request(body: JsonObject, model: ModelSpec): JsonObject;
  /** The client's reader, around `inner`, the family's reader of the answer in the model's API. */
  reader(inner: ResponseReader, body: JsonObject, model: ModelSpec): TranslatingReader;
  /**
   * A family's refusal (a 400 naming a field of the model's API) as the client's API names that field;
   * absent, the message goes as the family wrote it.
   */
  clientMessage?(message: string): string;
  /**
   * Request headers the model's API requires of its clients (a version header), which a client of the
   * other API does not send: the family sees the translated request with these set.
   */
  readonly headers?: Readonly<Record<string, string>>;
}
