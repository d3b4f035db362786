/**
 * The limiter cases against the Redis limiter, each `make()` another instance on the same counts. Redis
 * decides on its own clock (TIME), so these run in real time, with windows and leases of seconds (see
 * limiter-cases.ts); the cases run at once, each in a key prefix of its own, so the file takes about as
 * long as its longest case rather than all of them in turn.
 */
import t from 'tap';
import pino from 'pino';
import { RedisLimiter } from '../../../../plugins/middleware/rate-limit/redis-limiter';
import type { Limiter } from '../../../../plugins/middleware/rate-limit/limiter';
import { RedisLink } from '../../../../core/redis/redis-link';
import { redisPrefix, TEST_REDIS_URL } from '../../../helpers/redis';
import { LEASE_MS, LIMITER_CASES } from './limiter-cases';

const silent = pino({ level: 'silent' });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

t.jobs = LIMITER_CASES.length;
for (const c of LIMITER_CASES) {
  void t.test(`redis: ${c.name}`, (t) => {
    // A command unanswered for 5 s fails the case: a busy machine stalls an event loop for a second or
    // two, and a shorter timeout would fail a script that Redis ran.
    const config = { url: TEST_REDIS_URL, key_prefix: redisPrefix(t), command_timeout: 5_000 };
    const links = new Map<Limiter, RedisLink>();
    t.teardown(() => Promise.all([...links.values()].map((l) => l.close())));
    return c.run(t, {
      // Redis' clock is this machine's: time passes only by waiting.
      clock: { now: () => Date.now(), advance: sleep },
      async make(windowMs) {
        const link = await RedisLink.connect(config, silent, 10_000);
        const limiter = new RedisLimiter(link, { windowMs, leaseMs: LEASE_MS });
        links.set(limiter, link);
        return limiter;
      },
      dies(limiter) {
        links.get(limiter)?.client.disconnect(); // no renewals, no releases
        return Promise.resolve();
      },
    });
  });
}
