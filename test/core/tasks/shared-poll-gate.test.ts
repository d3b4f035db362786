/**
 * The shared poll gate against real Redis: two instances' gates share one concurrency cap; with Redis
 * unreachable, a poll is let through at once under the local caps, never left waiting.
 */
import pino from 'pino';
import t from 'tap';
import { RedisLink } from '../../../core/redis/redis-link';
import { SharedPollGate } from '../../../core/tasks/shared-poll-gate';
import { freePort } from '../../helpers/process';
import { redisPrefix, TEST_REDIS_URL } from '../../helpers/redis';

const silent = pino({ level: 'silent' });
const CAPS = { concurrency: 2, perSecond: 0 };

/** Whether `p` settles within `ms`. */
const within = (p: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

void t.test('two instances share one concurrency cap', async (t) => {
  const key_prefix = redisPrefix(t);
  const links = await Promise.all(
    [0, 1].map(() => RedisLink.connect({ url: TEST_REDIS_URL, key_prefix, command_timeout: 1_000 }, silent)),
  );
  t.teardown(() => Promise.all(links.map((l) => l.close())));
  const [a, b] = links.map((link) => new SharedPollGate(link, 'videoa-main', CAPS, 5_000, undefined, silent));
  const first = await a!.take();
  await b!.take();
  const third = a!.take();
  t.notOk(await within(third, 200), 'a third poll waits while the two slots are held by either instance');
  first();
  t.ok(await within(third, 1_000), 'and starts once one is given back');
  await Promise.all([a!.close(), b!.close()]);
});

void t.test('Redis unreachable: local caps at once, no waiting on Redis', async (t) => {
  const url = `redis://127.0.0.1:${await freePort()}`;
  const link = await RedisLink.connect({ url, key_prefix: 'x:', command_timeout: 100 }, silent, 100);
  t.teardown(() => link.close());
  const gate = new SharedPollGate(link, 'videoa-main', CAPS, 5_000, undefined, silent);
  const started = Date.now();
  await gate.take();
  const second = await gate.take();
  t.ok(Date.now() - started < 500, `two polls let through in ${Date.now() - started} ms`);
  const third = gate.take();
  t.notOk(await within(third, 200), 'the local concurrency cap still holds');
  second();
  t.ok(await within(third, 1_000), 'and frees as polls end');
  await gate.close();
});
