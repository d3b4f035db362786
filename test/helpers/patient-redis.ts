/**
 * Redis commands of gateway instances under test, given time to answer. The gateway gives up a command
 * after `redis.command_timeout` (100 ms by default) and decides locally instead: right for a Redis that
 * is slow in production, wrong for a test of exact sharing on a machine busy enough to stall an event
 * loop for a second, where a local decision is a miscount. Tests of the fallback itself kill Redis,
 * which fails commands at once whatever the timeout.
 */
import type { ConfigDoc } from './gateway';

export const PATIENT_COMMAND_TIMEOUT = '5s';

/** Sets `redis.command_timeout` of a configuration that has a `redis` section. */
export function patientRedis(doc: ConfigDoc): void {
  (doc.redis as Record<string, unknown>).command_timeout = PATIENT_COMMAND_TIMEOUT;
}
