import type { IncomingHttpHeaders } from 'node:http';
import type { PromptCache } from './prompt-cache';

/**
 * What a call's answer is made of, apart from the connection it came on. A live exchange is one; a line of a
 * batch is another, a body with no connection, so both are answered by the same code and answer alike.
 */
export interface Call {
  /** The request body as parsed: the JSON value, else the raw text. */
  readonly body: unknown;
  /** Where `x-sim-*` controls may be; a batch line has none of its own. */
  readonly headers: IncomingHttpHeaders;
  /** The simulator's id of the request, which some vendors repeat in the body. */
  readonly simId: string;
  /** The answering family's name, which scopes the prompt cache. */
  readonly familyName: string;
  readonly promptCache: PromptCache;
}

/** A route's whole JSON answer to a call that is not streamed; throws SimError for an error answer. */
export type JsonAnswer = (call: Call) => unknown;
