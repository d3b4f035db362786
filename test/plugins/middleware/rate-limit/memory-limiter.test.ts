/**
 * The limiter cases against the in-process limiter, on a manual clock: every window that passes is the
 * clock moved, so nothing sleeps and a busy machine cannot change what a case sees.
 */
import t from 'tap';
import { MemoryLimiter } from '../../../../plugins/middleware/rate-limit/memory-limiter';
import type { Decision, Limiter } from '../../../../plugins/middleware/rate-limit/limiter';
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

void t.test('memory: what comes in one millisecond leaves the window together, and only that', (t) => {
  const clock = manualClock();
  const windowMs = 1_000;
  const limiter = new MemoryLimiter(windowMs, clock.read);
  const requests = [{ subject: 'key:a', kind: 'requests', limit: 3 } as const];
  const waitOf = (d: Decision): number => (d.admitted ? 0 : d.retryAfterMs);

  t.ok(limiter.admit(requests).admitted && limiter.admit(requests).admitted, 'two calls at 0 ms');
  clock.tick(10);
  t.ok(limiter.admit(requests).admitted, 'a third at 10 ms');
  clock.tick(10);
  t.equal(waitOf(limiter.admit(requests)), windowMs - 20, 'a fourth at 20 ms waits for the two of 0 ms');
  clock.tick(windowMs - 20);
  t.ok(
    limiter.admit(requests).admitted && limiter.admit(requests).admitted,
    'both their places free at once',
  );
  t.equal(waitOf(limiter.admit(requests)), 10, 'the call of 10 ms still counts');

  const tokens = [{ subject: 'key:b', kind: 'tokens', limit: 100 } as const];
  for (const used of [40, 30, 20]) {
    const d = limiter.admit(tokens);
    if (d.admitted) limiter.settle(d.admission, used);
  }
  t.strictSame(
    limiter.admit(tokens).quota.tokens,
    { limit: 100, remaining: 10, resetMs: windowMs },
    '90 tokens',
  );
  clock.tick(windowMs);
  t.strictSame(
    limiter.admit(tokens).quota.tokens,
    { limit: 100, remaining: 100, resetMs: 0 },
    'all gone at once',
  );
  t.end();
});
