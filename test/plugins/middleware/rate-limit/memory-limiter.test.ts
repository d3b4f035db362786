import t from 'tap';
import { MemoryLimiter } from '../../../../plugins/middleware/rate-limit/memory-limiter';
import { LIMITER_CASES, WINDOW_MS } from './limiter-cases';

for (const c of LIMITER_CASES.filter((c) => !c.redisOnly)) {
  void t.test(`memory: ${c.name}`, (t) => {
    // One limiter per case, shared by every `make()`: the memory backend's counts are per process.
    const limiter = new MemoryLimiter(WINDOW_MS);
    return c.run(t, { make: () => Promise.resolve(limiter) });
  });
}
