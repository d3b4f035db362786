/**
 * MongoDB that cannot serve in time, as the client sees it: 503 `store_unavailable` with `Retry-After`,
 * not a 500. Every wait is bounded (connect.ts): server selection, a connection from the pool, the
 * majority's acknowledgement of a write; past any of them the driver fails the operation, and this turns
 * that failure into the answer. Anything else a store throws (a bug, a duplicate key) passes unchanged.
 */
import { MongoError, MongoNetworkError, MongoServerSelectionError, MongoWriteConcernError } from 'mongodb';
import { Errors } from '../../base/errors';

/** Driver errors the driver does not export by class, known by name. */
const UNAVAILABLE_NAMES = new Set(['MongoWaitQueueTimeoutError', 'MongoPoolClearedError']);

/** Seconds a client is asked to wait: about one election of a new primary. */
const RETRY_AFTER_S = 5;

/** Whether `e` means MongoDB could not answer in time (no primary, a full pool, no majority), not that the operation was wrong. */
export function isMongoUnavailable(e: unknown): boolean {
  return (
    e instanceof MongoServerSelectionError ||
    e instanceof MongoNetworkError ||
    e instanceof MongoWriteConcernError ||
    (e instanceof MongoError && UNAVAILABLE_NAMES.has(e.name))
  );
}

/**
 * `store` with every method's rejection for unavailability turned into 503 store_unavailable. Methods
 * that return no promise (`watch`) are passed through untouched.
 */
export function answeringUnavailable<T extends object>(store: T): T {
  // One wrapper per method, made on first use: `usage.accepting()` runs on every request.
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      let wrapper = wrapped.get(property);
      if (!wrapper) {
        const method = value as (...args: unknown[]) => unknown;
        wrapper = (...args: unknown[]): unknown => {
          const result = Reflect.apply(method, target, args);
          return result instanceof Promise ? result.catch(rethrowUnavailable) : result;
        };
        wrapped.set(property, wrapper);
      }
      return wrapper;
    },
  });
}

function rethrowUnavailable(e: unknown): never {
  throw isMongoUnavailable(e) ? Errors.storeUnavailable(RETRY_AFTER_S, e) : e;
}
