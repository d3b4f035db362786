/**
 * The limiter cases against the in-process limiter, on a manual clock: every window that passes is the
 * clock moved, so nothing sleeps and a busy machine cannot change what a case sees.
 */
import t from 'tap';
import { MemoryLimiter } from '../../../../plugins/middleware/rate-limit/memory-limiter';
import type { Limiter } from '../../../../plugins/middleware/rate-limit/limiter';
import { manualClock } from '../../../helpers/clock';
import { LIMITER_CASES } from './limiter-cases';

for (const c of LIMITER_CASES.filter((c) => !c.redisOnly)) {
  void t.test(`memory: ${c.name}`, (t) => {
    const clock = manualClock();
    // One limiter per case (and window), shared by every `make()`: the memory backend's counts are per
    // process.
    const limiters = new Map<number, Limiter>();
    return c.run(t, {
      clock: {
        now: clock.read,
        advance: (ms) => {
          clock.tick(ms);
          return Promise.resolve();
        },
      },
      make(windowMs) {
        let limiter = limiters.get(windowMs);
        if (!limiter) limiters.set(windowMs, (limiter = new MemoryLimiter(windowMs, clock.read)));
        return Promise.resolve(limiter);
      },
    });
  });
}
