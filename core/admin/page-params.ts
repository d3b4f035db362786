/** The query checks every paged admin listing shares: known parameters only, each once, and `limit`. */
import { Errors } from '../base/errors';

/** Refuses a parameter not in `known` (the error lists them) and one given more than once. */
export function checkParams(search: URLSearchParams, known: readonly string[]): void {
  for (const name of new Set(search.keys())) {
    if (!known.includes(name)) throw Errors.invalidQuery(name, `one of ${known.join(', ')}`);
    if (search.getAll(name).length > 1) throw Errors.invalidQuery(name, 'given once');
  }
}

const MAX_LIMIT = 500;

/** `limit`: an integer from 1 to 500, else `fallback`. */
export function pageLimit(search: URLSearchParams, fallback: number): number {
  const text = search.get('limit');
  if (text === null) return fallback;
  const limit = /^[1-9]\d{0,2}$/.test(text) ? Number(text) : NaN;
  if (!(limit <= MAX_LIMIT)) throw Errors.invalidQuery('limit', `an integer from 1 to ${MAX_LIMIT}`);
  return limit;
}
