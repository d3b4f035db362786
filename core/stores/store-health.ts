/**
 * Whether a store can do its work now, as readiness asks it (core/health/): cheap to ask, never a
 * write of its own. The embedded stores report whether their last write failed; MongoDB answers a ping.
 */

export interface StoreHealth {
  readonly ok: boolean;
  /** Why not, when not ok: the failing write or ping, with its error. */
  readonly reason?: string;
}

export const HEALTHY: StoreHealth = Object.freeze({ ok: true });

/** The health of a writer whose latest write failed with `failure` (undefined: it succeeded, or none ran). */
export function writeHealth(what: string, failure: unknown): StoreHealth {
  if (failure === undefined) return HEALTHY;
  return { ok: false, reason: `${what}: the last write failed (${describeError(failure)})` };
}

/** The first failing store's health, else healthy. */
export function firstFailing(healths: readonly StoreHealth[]): StoreHealth {
  return healths.find((h) => !h.ok) ?? HEALTHY;
}

/** `EISDIR: illegal operation on a directory, open '…'` and the like: the code and message, short. */
export function describeError(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}
