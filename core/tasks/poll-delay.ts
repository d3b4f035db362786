/**
 * How long a task waits before its next poll. The wait grows with each poll (half again) or each failure
 * in a row (doubling), within the upstream's `poll.every` and `poll.max_every`, and is jittered: tasks
 * submitted together would otherwise poll together at every step, in bursts the upstream's rate cap
 * then queues. Each wait is drawn uniformly from [0.5, 1.5] × the backoff's value, cut to the bounds
 * (drawn within the cut window, not piled on its edge, so tasks at `max_every` spread too).
 */
import type { PollPolicy } from '../contracts/task-upstream';

/** A uniform draw in [0, 1); injectable so tests can pin it. */
export type Draw = () => number;

/** The wait from submit to the first poll: `poll.every`, up to half again. */
export const firstPollDelay = (policy: PollPolicy, draw: Draw = Math.random): number =>
  jittered(policy, policy.everyMs, draw);

/** The wait before the next poll of a task in progress: half again longer each time, up to the cap. */
export const nextPollDelay = (policy: PollPolicy, polls: number, draw: Draw = Math.random): number =>
  jittered(policy, policy.everyMs * 1.5 ** Math.min(polls, 30), draw);

/** The wait after a failed poll: doubling with each failure in a row, up to the cap. */
export const errorDelay = (policy: PollPolicy, errors: number, draw: Draw = Math.random): number =>
  jittered(policy, policy.everyMs * 2 ** Math.min(errors, 30), draw);

function jittered({ everyMs, maxEveryMs }: PollPolicy, backoff: number, draw: Draw): number {
  const target = Math.min(maxEveryMs, backoff);
  const low = Math.min(maxEveryMs, Math.max(everyMs, target * 0.5));
  const high = Math.max(low, Math.min(maxEveryMs, target * 1.5));
  return Math.round(low + draw() * (high - low));
}
