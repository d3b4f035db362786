/**
 * The gateway's metrics as Prometheus sees them (name, help, labels, buckets), made in one gateway's
 * registry. They are registered in the order the functions here are called, which is the order a scrape
 * lists them in.
 */
import {
  Counter,
  Gauge,
  type CounterConfiguration,
  type Registry,
  type RegistryContentType,
} from 'prom-client';
import { CellCounter, CellHistogram, type HistogramCell } from './metric-cells';

/** Seconds: the gateway's own share of a request is small, an upstream's may run for minutes. */
const OVERHEAD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const POLL_LAG_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Makes metrics of each kind in one registry. */
export interface MetricMaker {
  counter(config: CounterConfiguration<string>): Counter<string>;
  /** A counter whose label sets are resolved once into cells (metric-cells.ts). */
  cells(config: { name: string; help: string; labelNames: string[] }): CellCounter;
  histogram(config: { name: string; help: string; labelNames?: string[]; buckets: number[] }): CellHistogram;
  gauge(config: { name: string; help: string; labelNames: string[] }): Gauge<string>;
}

export function metricMaker(registry: Registry<RegistryContentType>): MetricMaker {
  return {
    counter: (config) => new Counter({ ...config, registers: [registry] }),
    cells: (config) => new CellCounter(config.name, config.help, config.labelNames, registry),
    histogram: (config) =>
      new CellHistogram(config.name, config.help, config.labelNames ?? [], registry, config.buckets),
    gauge: (config) => new Gauge({ ...config, registers: [registry] }),
  };
}

/** What each request answered counts: by endpoint, route and status, its timings, its tokens and cost. */
export interface RequestMetrics {
  readonly requests: CellCounter;
  readonly errors: CellCounter;
  readonly duration: CellHistogram;
  readonly overhead: CellHistogram;
  readonly upstreamDuration: CellHistogram;
  readonly firstByte: CellHistogram;
  readonly tokens: CellCounter;
  readonly cost: CellCounter;
}

export function requestMetrics(make: MetricMaker): RequestMetrics {
  return {
    requests: make.cells({
      name: 'gateway_requests_total',
      help: 'Requests answered, by endpoint, routed model, upstream, the status the client saw (499: it left before any) and how the call ended (outcome).',
      labelNames: ['endpoint', 'model', 'upstream', 'status', 'outcome'],
    }),
    errors: make.cells({
      name: 'gateway_error_responses_total',
      help: "Requests answered with one of the gateway's own errors, by code (rate_limited and budget_exhausted are the limit refusals).",
      labelNames: ['code'],
    }),
    duration: make.histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Time from the request to its last byte, by endpoint.',
      labelNames: ['endpoint'],
      buckets: LATENCY_BUCKETS,
    }),
    overhead: make.histogram({
      name: 'gateway_request_overhead_seconds',
      help: "The gateway's own time in a request: its duration minus the time spent on upstreams, by endpoint.",
      labelNames: ['endpoint'],
      buckets: OVERHEAD_BUCKETS,
    }),
    upstreamDuration: make.histogram({
      name: 'gateway_upstream_duration_seconds',
      help: "Time spent on upstreams per request (every attempt): from sending the request to the response's last byte, by the upstream that answered.",
      labelNames: ['upstream'],
      buckets: LATENCY_BUCKETS,
    }),
    firstByte: make.histogram({
      name: 'gateway_stream_first_byte_seconds',
      help: 'Streams: time from the request to the first event written to the client, by upstream.',
      labelNames: ['upstream'],
      buckets: LATENCY_BUCKETS,
    }),
    tokens: make.cells({
      name: 'gateway_tokens_total',
      help: 'Tokens used, by model and kind (prompt, completion; reasoning, cache_read and cache_write are parts of those).',
      labelNames: ['model', 'kind'],
    }),
    cost: make.cells({
      name: 'gateway_cost_total',
      help: "Cost of the calls and video tasks billed, in the currency of gateway.yaml's prices, by model (unpriced calls count nothing).",
      labelNames: ['model'],
    }),
  };
}

/** Upstream attempts that failed, the retries and ejections they led to. */
export interface UpstreamMetrics {
  readonly failures: Counter<string>;
  readonly retries: Counter<string>;
  readonly retriesRefused: Counter<string>;
  readonly ejections: Counter<string>;
}

export function upstreamMetrics(make: MetricMaker): UpstreamMetrics {
  return {
    failures: make.counter({
      name: 'gateway_upstream_failures_total',
      help: 'Upstream attempts that failed before answering the client, by upstream and reason (upstream_unreachable, upstream_timeout, http_<status>).',
      labelNames: ['upstream', 'reason'],
    }),
    retries: make.counter({
      name: 'gateway_upstream_retries_total',
      help: "Requests sent again to the route's next target (its first fallback when it has some) after a failure, by upstream failed and upstream tried.",
      labelNames: ['from', 'to'],
    }),
    retriesRefused: make.counter({
      name: 'gateway_upstream_retries_refused_total',
      help: 'Failures not retried because the retry budget was spent, by upstream.',
      labelNames: ['upstream'],
    }),
    ejections: make.counter({
      name: 'gateway_upstream_ejections_total',
      help: 'Upstreams ejected by this instance for consecutive failures, by upstream.',
      labelNames: ['upstream'],
    }),
  };
}

/** This instance's video polls. */
export interface PollMetrics {
  readonly polls: Counter<string>;
  readonly lag: HistogramCell;
}

export function pollMetrics(make: MetricMaker): PollMetrics {
  return {
    polls: make.counter({
      name: 'gateway_video_polls_total',
      help: 'Video task polls made by this instance, by upstream and result (ok, error).',
      labelNames: ['upstream', 'result'],
    }),
    lag: make
      .histogram({
        name: 'gateway_video_poll_lag_seconds',
        help: 'How late video polls started after their task was due.',
        buckets: POLL_LAG_BUCKETS,
      })
      .cell(),
  };
}

/** The configuration serving, and the reloads. */
export interface ConfigMetrics {
  readonly info: Gauge<string>;
  readonly reloads: Counter<string>;
}

export function configMetrics(make: MetricMaker): ConfigMetrics {
  return {
    info: make.gauge({
      name: 'gateway_config_info',
      help: 'The configuration serving: 1, with the sha256 of its file (or of its JSON) as `hash`.',
      labelNames: ['hash'],
    }),
    reloads: make.counter({
      name: 'gateway_config_reloads_total',
      help: 'Configuration reloads by result (applied, unchanged, refused).',
      labelNames: ['result'],
    }),
  };
}

/** Spend alerts: thresholds crossed, webhook attempts, deliveries. */
export interface AlertMetrics {
  readonly crossings: Counter<string>;
  readonly attempts: Counter<string>;
  readonly deliveries: Counter<string>;
}

export function alertMetrics(make: MetricMaker): AlertMetrics {
  return {
    crossings: make.counter({
      name: 'gateway_alert_crossings_total',
      help: 'Budget thresholds crossed, by result: claimed (this instance sends the alert), claimed_elsewhere, claim_failed, dropped (the alert queue was full, or the gateway stopping).',
      labelNames: ['result'],
    }),
    attempts: make.counter({
      name: 'gateway_alert_delivery_attempts_total',
      help: 'Spend alert webhook attempts, by result (2xx, 3xx, 4xx, 429, 5xx, timeout, unreachable, stopped).',
      labelNames: ['result'],
    }),
    deliveries: make.counter({
      name: 'gateway_alert_deliveries_total',
      help: 'Spend alert deliveries ended, by outcome: delivered, rejected (a 4xx other than 429, not retried), failed (attempts spent, or the gateway stopping).',
      labelNames: ['outcome'],
    }),
  };
}
