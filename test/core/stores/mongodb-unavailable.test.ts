/**
 * MongoDB that cannot answer in time reaches the client as 503 store_unavailable with Retry-After: the
 * driver's errors for no server, a network failure, a full pool and an unacknowledged majority write
 * (the waits connect.ts bounds) are recognised, and a store wrapped by answeringUnavailable rethrows them
 * so. The driver's errors are built here by hand; against a real replica set the contract tests inject
 * them with fail points (where MONGODB_URI is set).
 */
import t from 'tap';
import {
  MongoError,
  MongoNetworkTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
  type TopologyDescription,
} from 'mongodb';
import { GatewayError } from '../../../core/base/errors';
import { answeringUnavailable, isMongoUnavailable } from '../../../core/stores/mongodb/unavailable';

/** A driver error the driver does not export by class, as it names it. */
function named(name: string): MongoError {
  const e = new MongoError('timed out');
  Object.defineProperty(e, 'name', { value: name });
  return e;
}

const UNAVAILABLE: [string, Error][] = [
  ['no server to select', new MongoServerSelectionError('no primary', {} as TopologyDescription)],
  ['a network timeout', new MongoNetworkTimeoutError('socket timed out')],
  [
    'a majority write not acknowledged in time',
    new MongoWriteConcernError({
      ok: 1,
      writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' },
    }),
  ],
  ['a full pool', named('MongoWaitQueueTimeoutError')],
  ['a pool cleared by a failover', named('MongoPoolClearedError')],
];
const OTHER: [string, Error][] = [
  ['a duplicate key', new MongoServerError({ message: 'E11000', code: 11000 })],
  ['a bug', new TypeError('x is undefined')],
];

t.test('which driver errors mean MongoDB could not answer in time', (t) => {
  for (const [what, e] of UNAVAILABLE) t.equal(isMongoUnavailable(e), true, what);
  for (const [what, e] of OTHER) t.equal(isMongoUnavailable(e), false, what);
  t.end();
});

class FakeStore {
  #calls = 0;
  constructor(private readonly fault: Error) {}
  read(): Promise<number> {
    this.#calls++;
    return Promise.reject(this.fault);
  }
  count(): Promise<number> {
    return Promise.resolve(++this.#calls);
  }
  accepting(): boolean {
    return this.#calls >= 0;
  }
}

t.test('a wrapped store answers 503 store_unavailable for those, and passes the rest', async (t) => {
  for (const [what, e] of UNAVAILABLE) {
    const store = answeringUnavailable(new FakeStore(e));
    const error = await store.read().catch((x: unknown) => x);
    t.ok(error instanceof GatewayError, what);
    t.match(error, { status: 503, code: 'store_unavailable', headers: { 'retry-after': '5' } }, what);
    t.equal((error as GatewayError).cause, e, `${what}: the driver's error kept as the cause`);
  }
  for (const [what, e] of OTHER) {
    const store = answeringUnavailable(new FakeStore(e));
    t.equal(await store.read().catch((x: unknown) => x), e, `${what}: passed unchanged`);
  }
  const store = answeringUnavailable(new FakeStore(new Error('unused')));
  t.equal(await store.count(), 1, 'a method that succeeds answers as before (private fields and all)');
  t.equal(store.accepting(), true, 'a method without a promise is passed through');
  t.equal(Reflect.get(store, 'accepting'), Reflect.get(store, 'accepting'), 'one wrapper per method');
  t.ok(store instanceof FakeStore);
});
