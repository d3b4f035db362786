/**
 * The shared poll gate against real Redis: two instances' gates share one concurrency cap; with Redis
 * unreachable, a poll is let through at once under the local caps, never left waiting.
 */
import pino from 'pino';
import t from 'tap';
import { RedisLink } from '../../../core/redis/redis-link';
import { SharedPollGate } from '../../../core/tasks/shared-poll-gate';
import { refusedUrl } from '../../helpers/ports';
import { redisPrefix, TEST_REDIS_URL } from '../../helpers/redis';

const silent = pino({ level: 'silent' });
const CAPS = { concurrency: 2, perSecond: 0 };

/**
 * Whether `p` settles within `ms`. A bounded wait is the only way to see that a poll waits (nothing
 * marks its not starting); a slow machine cannot make a poll that waits start, only one that may start
 * start later, so the deadlines for starting are long.
 */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([p.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

void t.test('two instances share one concurrency cap', async (t) => {
  const key_prefix = redisPrefix(t);
  const links = await Promise.all(
    // A command timing out would let a poll through on local caps: room for a stalled event loop.
    [0, 1].map(() => RedisLink.connect({ url: TEST_REDIS_URL, key_prefix, command_timeout: 5_000 }, silent)),
  );
  t.teardown(() => Promise.all(links.map((l) => l.close())));
  const [a, b] = links.map((link) => new SharedPollGate(link, 'videoa-main', CAPS, 5_000, undefined, silent));
  const first = await a!.take();
  await b!.take();
  const third = a!.take();
  t.notOk(await within(third, 200), 'a third poll waits while the two slots are held by either instance');
  first();
  t.ok(await within(third, 10_000), 'and starts once one is given back');
  await Promise.all([a!.close(), b!.close()]);
});

void t.test('Redis unreachable: local caps at once, no waiting on Redis', async (t) => {
  const url = refusedUrl('', 'redis');
  // A command to Redis would wait 5 s for its answer: polls let through in well under that did not wait
  // on Redis at all, even on a machine that stalls for a second or two.
  const link = await RedisLink.connect({ url, key_prefix: 'x:', command_timeout: 5_000 }, silent, 100);
  t.teardown(() => link.close());
  const gate = new SharedPollGate(link, 'videoa-main', CAPS, 5_000, undefined, silent);
  const started = Date.now();
  await gate.take();
  const second = await gate.take();
  t.ok(Date.now() - started < 2_500, `two polls let through in ${Date.now() - started} ms`);
  const third = gate.take();
  t.notOk(await within(third, 200), 'the local concurrency cap still holds');
  second();
  t.ok(await within(third, 10_000), 'and frees as polls end');
  await gate.close();
});
