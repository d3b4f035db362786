/** The TeamStore contract against the embedded store always, and against MongoDB when MONGODB_URI is set. */
import t from 'tap';
import { EmbeddedTeamStore } from '../../../core/stores/embedded/embedded-team-store';
import { MongoTeamStore } from '../../../core/stores/mongodb/mongo-team-store';
import { tempDir } from '../../helpers/gateway';
import { closingAtEnd, indexedCollections, MONGODB_URI, mongoTestDb, NO_MONGODB } from '../../helpers/stores';
import { teamStoreContract } from './team-store.contract';

t.test('embedded', (t) => {
  teamStoreContract(t, async (t) => {
    const dir = await tempDir(t);
    return closingAtEnd(t, () => EmbeddedTeamStore.open(dir));
  });
  t.end();
});

t.test('MongoDB', MONGODB_URI ? {} : { skip: NO_MONGODB }, async (t) => {
  const db = await mongoTestDb(t, MONGODB_URI ?? '');
  const nextCollection = indexedCollections(db, 'teams');
  teamStoreContract(
    t,
    async (t) => {
      const collection = await nextCollection();
      return closingAtEnd(t, () => Promise.resolve(MongoTeamStore.open(db, { collection })));
    },
    { shared: true },
  );
});
