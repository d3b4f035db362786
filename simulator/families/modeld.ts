import type { IncomingHttpHeaders } from 'node:http';
import { bearerAuth, type Family } from '../family';
import { errorBody } from '../messages/errors';
import { handleMessages, messageAnswer } from '../messages/handler';
import { messageBatchRoutes } from '../message-batches/routes';

/** `x-api-key: <key>` or `Authorization: Bearer <key>`: the vendor's SDK sends either. */
const apiKeyAuth = (headers: IncomingHttpHeaders, key: string): boolean =>
  headers['x-api-key'] === key || bearerAuth(headers, key);

/**
 * `modeld`: Anthropic Messages (docs/upstreams.md#modeld), with `modeld-version` where the vendor has
 * `anthropic-version`. Replies are typed content blocks; streams are named events without `[DONE]`. Its
 * Message Batches answer each request as the Messages route would.
 */
export const modeld: Family = {
  name: 'modeld',
  mount: '/modeld',
  defaultKey: 'sim-modeld-key',
  requestIdHeader: 'request-id',
  routes: { 'POST /v1/messages': handleMessages, ...messageBatchRoutes(messageAnswer) },
  authorized: apiKeyAuth,
  errorBody,
};

/** Found on disk by index.ts. */
export const family: Family = modeld;
