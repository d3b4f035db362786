/** The request as an upstream family reads it in `prepare`: its body, headers, endpoint and state. */
import type { IncomingHttpHeaders } from 'node:http';
import type { JsonObject } from '../base/json';
import type { EndpointInfo } from './api';
import type { StateKey } from './state-key';

export interface FamilyRequest {
  /** The client's request headers, as it sent them (with a translator's own, on a translated request). */
  readonly headers: IncomingHttpHeaders;
  readonly endpoint: EndpointInfo;
  /** The request's id (`x-request-id`), which a translating family may name its client's answer by. */
  readonly requestId: string;
  /** The request body, read once under the configured size and time limits. */
  rawBody(): Promise<Buffer>;
  /**
   * The request body parsed once as a JSON object (400 otherwise); the bytes forwarded are the ones parsed.
   * The same object for every reader (the stages, a fallback's prepare): a family copies what it changes.
   */
  json(): Promise<JsonObject>;
  get<T>(key: StateKey<T>): T | undefined;
  /**
   * Whether the stream of this request is relayed event by event (a stage watches it, or it is
   * translated), so a family may ask its vendor for more than the client asked (usage) and strip it
   * again; a stream piped through would hand the client what it did not ask for.
   */
  readonly streamRelayed: boolean;
  /**
   * Whether a translator reads what the family's reader lets through, the client speaking another API:
   * nothing the family would shape for its own API's clients (members it strips) reaches a client as it is.
   */
  readonly translated: boolean;
}
