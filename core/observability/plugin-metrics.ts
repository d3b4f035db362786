/**
 * Metrics a plugin makes in its gateway's registry (a cache's hit counter). Made once per gateway: a
 * reload builds its stages anew, and the stage after it gets the metric its predecessor made, counts
 * and all. A plugin keeps what a `collect` reads (its store) in KeptState, so it outlives the stage.
 */
import { Counter, Gauge, Histogram, type Registry, type RegistryContentType } from 'prom-client';
import { token } from '../base/token';
import { CellCounter } from './metric-cells';

export interface PluginMetricConfig {
  /** `gateway_<plugin>_…`, Prometheus's naming. */
  readonly name: string;
  readonly help: string;
  /** Label values must be bounded by the configuration, never taken from what a client sends. */
  readonly labelNames?: readonly string[];
}

export interface PluginMetrics {
  counter(config: PluginMetricConfig): Counter<string>;
  /**
   * A counter for the request path: each label set is resolved once (`cell(...values)`, kept by the
   * plugin) and a call adds to its `value`, where a prom-client child hashes its labels at every `inc`.
   */
  cells(config: PluginMetricConfig): CellCounter;
  /** `buckets` in the metric's unit (seconds for a `_seconds` histogram). */
  histogram(config: PluginMetricConfig & { readonly buckets: readonly number[] }): Histogram<string>;
  /** `collect` sets the gauge's value as a scrape reads it. */
  gauge(config: PluginMetricConfig & { readonly collect?: (gauge: Gauge<string>) => void }): Gauge<string>;
}

export function pluginMetrics(registry: Registry<RegistryContentType>): PluginMetrics {
  const made = <M>(name: string, kind: new (...args: never[]) => M): M | undefined => {
    const metric = registry.getSingleMetric(name);
    if (metric === undefined) return undefined;
    if (metric instanceof kind) return metric;
    throw new Error(`the metric ${name} exists already, of another kind`);
  };
  return {
    counter: (config) =>
      made(config.name, Counter<string>) ??
      new Counter({ ...config, labelNames: [...(config.labelNames ?? [])], registers: [registry] }),
    cells: (config) =>
      made(config.name, CellCounter) ??
      new CellCounter(config.name, config.help, config.labelNames ?? [], registry),
    histogram: ({ buckets, ...config }) =>
      made(config.name, Histogram<string>) ??
      new Histogram({
        ...config,
        buckets: [...buckets],
        labelNames: [...(config.labelNames ?? [])],
        registers: [registry],
      }),
    gauge: ({ collect, ...config }) =>
      made(config.name, Gauge<string>) ??
      new Gauge({
        ...config,
        labelNames: [...(config.labelNames ?? [])],
        registers: [registry],
        ...(collect
          ? {
              collect: function (this: Gauge<string>) {
                collect(this);
              },
            }
          : {}),
      }),
  };
}

/** The gateway's metrics, for plugins. */
export const PluginMetricsToken = token<PluginMetrics>('PluginMetrics');
