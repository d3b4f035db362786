/** What every limiter works out alike, wherever it keeps its counts: admission ids, standings, a slot's wait. */
import { randomBytes } from 'node:crypto';
import type { LimitRule, Quota } from './limiter';

/**
 * Keeps `rule`'s standing in `quota` when it binds harder than the one held for its kind (fewer
 * remaining; ties keep the first). Concurrency limits have no standing.
 */
export function bind(quota: Quota, rule: LimitRule, remaining: number, resetMs: number): void {
  const kind = rule.kind;
  if (kind === 'concurrent') return;
  const held = quota[kind];
  if (!held || remaining < held.remaining) quota[kind] = { limit: rule.limit, remaining, resetMs };
}

/**
 * Retry-After of a concurrency refusal: a slot frees when some call ends, which nobody can foretell; one
 * second is the shortest whole answer.
 */
export const CONCURRENT_RETRY_MS = 1_000;

const ID_PREFIX = randomBytes(6).toString('base64url');
let seq = 0;
/** A process-unique prefix and a counter: unique across instances without a random draw per request. */
export const admissionId = (): string => `${ID_PREFIX}.${(++seq).toString(36)}`;
