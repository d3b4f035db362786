/**
 * The cache's metrics: answers by result, and the memory backend's entries, bytes and evictions. With
 * Redis the entries are Redis's to count (`INFO keyspace`), and the gauges stay unset.
 */
import type { PluginMetrics } from '../../../core/kit/tokens';
import type { CacheStore } from './entry';

export type CacheResult = 'hit' | 'miss' | 'bypass';

export interface CacheMetrics {
  /** Counts one answer by its result. */
  answered(result: CacheResult): void;
  evicted(): void;
}

/** The store the gauges read: a reload may replace the stage, and with a new memory bound, the store. */
export interface CurrentStore {
  store: CacheStore | undefined;
}

export function cacheMetrics(metrics: PluginMetrics, current: CurrentStore): CacheMetrics {
  const requests = metrics.cells({
    name: 'gateway_cache_requests_total',
    help: 'Calls the cache stage answered or passed on: hit (answered from an entry), miss (passed on; stored if it succeeds), bypass (not cached: Cache-Control no-store, or an endpoint or model the cache does not serve).',
    labelNames: ['result'],
  });
  const cells = { hit: requests.cell('hit'), miss: requests.cell('miss'), bypass: requests.cell('bypass') };
  const evictions = metrics.counter({
    name: 'gateway_cache_evictions_total',
    help: 'Entries the memory backend dropped to stay within its `memory` bound (expired entries are not counted).',
  });
  const size = (of: 'entries' | 'bytes') => () => current.store?.size?.()[of];
  metrics.gauge({
    name: 'gateway_cache_entries',
    help: "Entries held by the memory backend (this instance's).",
    collect: (gauge) => setIfKnown(gauge, size('entries')()),
  });
  metrics.gauge({
    name: 'gateway_cache_bytes',
    help: "Bytes held by the memory backend (this instance's), as counted against `memory`.",
    collect: (gauge) => setIfKnown(gauge, size('bytes')()),
  });
  return {
    answered: (result) => {
      cells[result].value++;
    },
    evicted: () => evictions.inc(),
  };
}

function setIfKnown(gauge: { set(value: number): void; reset(): void }, value: number | undefined): void {
  if (value === undefined) gauge.reset();
  else gauge.set(value);
}
