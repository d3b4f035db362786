/** The UsageStore contract against the embedded store always, and against MongoDB when MONGODB_URI is set. */
import t from 'tap';
import { EmbeddedUsageStore } from '../../../core/stores/embedded/embedded-usage-store';
import { MongoUsageStore } from '../../../core/stores/mongodb/mongo-usage-store';
import { tempDir } from '../../helpers/gateway';
import {
  closingAtEnd,
  indexedCollections,
  MONGODB_URI,
  mongoTestDb,
  NO_MONGODB,
  TEST_USAGE_WRITES as options,
} from '../../helpers/stores';
import { usageStoreContract } from './usage-store.contract';

t.test('embedded', (t) => {
  usageStoreContract(t, async (t) => {
    const dir = await tempDir(t);
    return closingAtEnd(t, () => EmbeddedUsageStore.open(dir, options));
  });
  t.end();
});

t.test('MongoDB', MONGODB_URI ? {} : { skip: NO_MONGODB }, async (t) => {
  const db = await mongoTestDb(t, MONGODB_URI ?? '');
  const nextCollection = indexedCollections(db, 'usage');
  usageStoreContract(t, async (t) => {
    const collection = await nextCollection();
    return closingAtEnd(t, () => Promise.resolve(MongoUsageStore.open(db, { ...options, collection })));
  });
});
