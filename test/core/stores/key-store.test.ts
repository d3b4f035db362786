/** The KeyStore contract against the embedded store always, and against MongoDB when MONGODB_URI is set. */
import t from 'tap';
import { EmbeddedKeyStore } from '../../../core/stores/embedded/embedded-key-store';
import { MongoKeyStore } from '../../../core/stores/mongodb/mongo-key-store';
import { tempDir } from '../../helpers/gateway';
import { closingAtEnd, indexedCollections, MONGODB_URI, mongoTestDb, NO_MONGODB } from '../../helpers/stores';
import { keyStoreContract } from './key-store.contract';

t.test('embedded', (t) => {
  keyStoreContract(t, async (t) => {
    const dir = await tempDir(t);
    return closingAtEnd(t, () => EmbeddedKeyStore.open(dir));
  });
  t.end();
});

t.test('MongoDB', MONGODB_URI ? {} : { skip: NO_MONGODB }, async (t) => {
  const db = await mongoTestDb(t, MONGODB_URI ?? '');
  const nextCollection = indexedCollections(db, 'keys');
  keyStoreContract(
    t,
    async (t) => {
      const collection = await nextCollection();
      return closingAtEnd(t, () => Promise.resolve(MongoKeyStore.open(db, { collection })));
    },
    { shared: true },
  );
});
