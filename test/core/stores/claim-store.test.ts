/**
 * The ClaimStore contract against the embedded file and Redis always, and against MongoDB when
 * MONGODB_URI is set. The embedded and MongoDB stores judge expiry by the clock they are given (a fake
 * one here); Redis expires claims on its own.
 */
import t from 'tap';
import pino from 'pino';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RedisClaims } from '../../../core/redis/redis-claims';
import { RedisLink } from '../../../core/redis/redis-link';
import { CLAIMS_FILE, EmbeddedClaimStore } from '../../../core/stores/embedded/embedded-claim-store';
import { MongoClaimStore } from '../../../core/stores/mongodb/mongo-claim-store';
import { manualClock } from '../../helpers/clock';
import { tempDir } from '../../helpers/gateway';
import { redisPrefix, TEST_REDIS_URL } from '../../helpers/redis';
import { closingAtEnd, MONGODB_URI, mongoTestDb, NO_MONGODB } from '../../helpers/stores';
import { claimStoreContract } from './claim-store.contract';

t.test('embedded', (t) => {
  claimStoreContract(t, async (t, clock) => {
    const dir = await tempDir(t);
    return closingAtEnd(t, () => Promise.resolve(new EmbeddedClaimStore(dir, clock)));
  });
  t.end();
});

t.test('Redis', (t) => {
  claimStoreContract(
    t,
    (t, clock) => {
      const config = { url: TEST_REDIS_URL, key_prefix: redisPrefix(t), command_timeout: 1_000 };
      // Each store its own connection, as each instance has.
      const open = closingAtEnd(t, async () => {
        const link = await RedisLink.connect(config, pino({ level: 'silent' }));
        t.teardown(() => link.close());
        return new RedisClaims(link, clock);
      });
      return Promise.resolve(open);
    },
    { shared: true, ownClock: true },
  );
  t.end();
});

t.test('MongoDB', MONGODB_URI ? {} : { skip: NO_MONGODB }, async (t) => {
  const db = await mongoTestDb(t, MONGODB_URI ?? '');
  let n = 0;
  claimStoreContract(
    t,
    (t, clock) => {
      const collection = `claims_${++n}`;
      return Promise.resolve(
        closingAtEnd(t, () => Promise.resolve(MongoClaimStore.open(db, { collection }, clock))),
      );
    },
    { shared: true },
  );
});

t.test('embedded: the file holds live claims only, and nothing is read until a claim', async (t) => {
  const dir = await tempDir(t);
  const clock = manualClock();
  const store = new EmbeddedClaimStore(dir, clock.read);
  await t.rejects(readFile(join(dir, CLAIMS_FILE)), { code: 'ENOENT' }, 'no file before the first claim');
  await store.claim('short', 'owner-a', clock.now + 50);
  clock.tick(100);
  await store.claim('long', 'owner-a', clock.now + 3_600_000);
  const file = JSON.parse(await readFile(join(dir, CLAIMS_FILE), 'utf8')) as { claims: object };
  t.same(Object.keys(file.claims), ['long'], 'the expired claim was dropped when the file was written');
  await store.close();
});
