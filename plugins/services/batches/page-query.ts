/** `limit` and `after` of OpenAI's list endpoints, read from a request's query string. */
import type { IncomingMessage } from 'node:http';
import { Errors } from '../../../core/kit/plugin';

export interface PageQuery {
  readonly limit: number;
  readonly after: string | undefined;
  readonly params: URLSearchParams;
}

export function pageQuery(req: IncomingMessage, defaultLimit: number, maxLimit: number): PageQuery {
  const params = new URL(req.url ?? '/', 'http://gateway').searchParams;
  const raw = params.get('limit');
  const limit = raw === null ? defaultLimit : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit)
    throw Errors.invalidQuery('limit', `an integer from 1 to ${maxLimit}`);
  return { limit, after: params.get('after') ?? undefined, params };
}
