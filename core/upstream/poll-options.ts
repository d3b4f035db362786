/** The `poll:` block of a task upstream in gateway.yaml, and the PollPolicy the poller reads from it. */
import { z } from 'zod';
import { duration } from '../../config/units';
import type { PollPolicy } from '../contracts/task-upstream';

const DEFAULTS = {
  every: 2_000,
  max_every: 30_000,
  deadline: 2 * 3_600_000,
  concurrency: 16,
  per_second: 20,
};

export const pollOptions = z
  .object({
    every: duration.default(DEFAULTS.every),
    max_every: duration.default(DEFAULTS.max_every),
    deadline: duration.default(DEFAULTS.deadline),
    concurrency: z.int().min(1).default(DEFAULTS.concurrency),
    /** The vendors limit task queries per account (DashScope: 20 per second); 0 for no limit. */
    per_second: z.number().min(0).default(DEFAULTS.per_second),
  })
  .strict()
  .default(DEFAULTS);

export const pollPolicy = (o: z.output<typeof pollOptions>): PollPolicy => ({
  everyMs: o.every,
  maxEveryMs: Math.max(o.every, o.max_every),
  deadlineMs: o.deadline,
  concurrency: o.concurrency,
  perSecond: o.per_second,
});
