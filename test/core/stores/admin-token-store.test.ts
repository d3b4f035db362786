/** The AdminTokenStore contract against the embedded store always, and against MongoDB when MONGODB_URI is set. */
import t from 'tap';
import { EmbeddedAdminTokenStore } from '../../../core/stores/embedded/embedded-admin-token-store';
import { MongoAdminTokenStore } from '../../../core/stores/mongodb/mongo-admin-token-store';
import { tempDir } from '../../helpers/gateway';
import { closingAtEnd, indexedCollections, MONGODB_URI, mongoTestDb, NO_MONGODB } from '../../helpers/stores';
import { adminTokenStoreContract } from './admin-token-store.contract';

t.test('embedded', (t) => {
  adminTokenStoreContract(t, async (t) => {
    const dir = await tempDir(t);
    return closingAtEnd(t, () => EmbeddedAdminTokenStore.open(dir));
  });
  t.end();
});

t.test('MongoDB', MONGODB_URI ? {} : { skip: NO_MONGODB }, async (t) => {
  const db = await mongoTestDb(t, MONGODB_URI ?? '');
  const nextCollection = indexedCollections(db, 'admin_tokens');
  adminTokenStoreContract(t, async (t) => {
    const collection = await nextCollection();
    return closingAtEnd(t, () => Promise.resolve(MongoAdminTokenStore.open(db, { collection })));
  });
});
