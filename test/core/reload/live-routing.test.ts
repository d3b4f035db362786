/**
 * Snapshot leases and the upstream pool: a replaced snapshot retires when its last request is done, and
 * an upstream is closed only when no snapshot in use lists it.
 */
import t from 'tap';
import { LiveRouting } from '../../../core/reload/live-routing';
import type { Snapshot } from '../../../core/reload/snapshot';
import { effectiveConfig } from '../../../core/reload/effective-config';
import { buildConfig } from '../../../config/load';
import type { Upstream } from '../../../core/upstream/upstream';
import { UpstreamPool } from '../../../core/upstream/upstream-pool';

/** Only identity matters to LiveRouting. */
const snapshot = (name: string) => ({ name }) as unknown as Snapshot;

t.test('a replaced snapshot retires once its last request gives it back', (t) => {
  const retired: Snapshot[] = [];
  const [a, b, c] = [snapshot('a'), snapshot('b'), snapshot('c')];
  const routing = new LiveRouting(a, (s) => retired.push(s));
  const first = routing.acquire();
  const second = routing.acquire();
  routing.swap(b);
  t.equal(routing.current, b, 'new requests get the new one');
  t.equal(routing.acquire().snapshot, b);
  routing.release(first);
  t.same(retired, [], 'still one request on the old one');
  routing.release(second);
  t.same(retired, [a], 'retired with its last request');
  t.equal(routing.draining, 0);
  routing.swap(c);
  t.same(retired, [a], 'b still has a request');
  t.equal(routing.draining, 1);
  t.end();
});

t.test('a snapshot no request used retires at the swap', (t) => {
  const retired: Snapshot[] = [];
  const a = snapshot('a');
  const routing = new LiveRouting(a, (s) => retired.push(s));
  routing.release(routing.acquire());
  routing.swap(snapshot('b'));
  t.same(retired, [a]);
  t.end();
});

t.test('the pool shares an unchanged upstream and closes one nobody lists', (t) => {
  const closed: string[] = [];
  const make = (name: string) => () => ({ name, close: () => closed.push(name) }) as unknown as Upstream;
  const pool = new UpstreamPool();
  const one = pool.take('u', 'settings-1', make('u'));
  t.equal(pool.take('u', 'settings-1', make('u-again')), one, 'same name and settings: the same upstream');
  const changed = pool.take('u', 'settings-2', make('u2'));
  t.not(changed, one, 'changed settings: a new one');
  pool.release([one]);
  t.same(closed, [], 'one snapshot still lists it');
  pool.release([one, changed]);
  t.same(closed, ['u', 'u2']);
  t.end();
});

t.test('restart-only settings keep their running values and are listed', (t) => {
  const doc = { pipeline: ['auth'], server: { port: 8080 }, keys: { cache_ttl: '1s', declared: [] } };
  const running = buildConfig(doc, {});
  const file = buildConfig(
    {
      ...doc,
      server: { port: 9090, timeouts: { upstream_response: '5s' } },
      keys: { cache_ttl: '2s', declared: [{ name: 'x', secret: `sk-${'x'.repeat(40)}` }] },
      logging: { level: 'debug', format: 'json' },
    },
    {},
  );
  const { config, restartRequired } = effectiveConfig(running, file);
  t.same(restartRequired, [
    'server.port',
    'server.timeouts.upstream_response',
    'keys.cache_ttl',
    'logging.format',
  ]);
  t.equal(config.server.port, 8080);
  t.equal(config.keys.cache_ttl, 1_000);
  t.equal(config.keys.declared.length, 1, 'declared keys apply live');
  t.equal(config.logging.level, 'debug', 'so does the log level');
  t.equal(config.logging.format, 'auto', "but not the log's format, chosen with its output at start-up");
  t.ok(Object.isFrozen(config.keys));
  t.end();
});
