import t from 'tap';
import pino from 'pino';
import { RedisLimiter } from '../../../../plugins/middleware/rate-limit/redis-limiter';
import type { Limiter } from '../../../../plugins/middleware/rate-limit/limiter';
import { RedisLink } from '../../../../core/redis/redis-link';
import { redisPrefix, TEST_REDIS_URL } from '../../../helpers/redis';
import { LEASE_MS, LIMITER_CASES, WINDOW_MS } from './limiter-cases';

for (const c of LIMITER_CASES) {
  void t.test(`redis: ${c.name}`, (t) => {
    const config = { url: TEST_REDIS_URL, key_prefix: redisPrefix(t), command_timeout: 500 };
    const links = new Map<Limiter, RedisLink>();
    t.teardown(() => Promise.all([...links.values()].map((l) => l.close())));
    // Each `make()` is another instance: its own connection, the same counts.
    return c.run(t, {
      async make() {
        const link = await RedisLink.connect(config, pino({ level: 'silent' }));
        const limiter = new RedisLimiter(link, { windowMs: WINDOW_MS, leaseMs: LEASE_MS });
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
