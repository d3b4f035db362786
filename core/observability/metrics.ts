/**
 * The gateway's Prometheus metrics, served as text on the admin port (`GET /metrics`). Each gateway has
 * a registry of its own, never prom-client's global one: tests run several gateways in one process.
 *
 * Labels are bounded by the configuration, never by what a client sends: the model is the catalogue's
 * id of a routed request (`none` otherwise, so a made-up model that 404s adds no series), the upstream
 * a configured name, the endpoint a route's id, and no key id ever. On the request path a label set is
 * resolved once into a cell (metric-cells.ts), kept per endpoint object, route target and status, so a
 * request costs map lookups and additions, never a label string built or hashed anew.
 */
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Registry,
  type CounterConfiguration,
  type RegistryContentType,
} from 'prom-client';
import type { Endpoint } from '../request/served-request';
import type { ServedRequest } from '../request/served-request';
import type { RouteTarget } from '../contracts/route';
import type { UsageStats } from '../stores/usage-store';
import type { TaskStatus } from '../stores/video-task';
import type { Usage } from '../contracts/usage';
import { CellCounter, CellHistogram, type CounterCell, type HistogramCell } from './metric-cells';

/** The label value of what a request never had: no route, no upstream, no endpoint. */
export const NONE = 'none';

/** Seconds: the gateway's own share of a request is small, an upstream's may run for minutes. */
const OVERHEAD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const POLL_LAG_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Task counts are read at scrape time from the store, at most this often (a MongoDB count is a query). */
const TASK_COUNT_TTL_MS = 5_000;

/** What the metrics read at scrape time from parts built after them. */
export interface MetricSources {
  readonly inFlight: () => number;
  readonly openStreams: () => number;
  readonly ejectedUpstreams: () => number;
  readonly usage: () => UsageStats;
  /** Absent when this instance runs no video poller. */
  readonly taskCounts?: () => Promise<Record<TaskStatus, number>>;
}

type Child = CounterCell;
type Timer = HistogramCell;

/** The children of one model's token and cost counters. */
interface ModelCounters {
  readonly prompt: Child;
  readonly completion: Child;
  readonly reasoning: Child;
  readonly cacheRead: Child;
  readonly cacheWrite: Child;
  readonly cost: Child;
}

/** The children of one endpoint's latency histograms. */
interface EndpointTimers {
  readonly duration: Timer;
  readonly overhead: Timer;
}

/** The children of one upstream's histograms. */
interface UpstreamTimers {
  readonly duration: Timer;
  readonly firstByte: Timer;
}

const statusLabels: string[] = [];
/** A status code as a label, made once per code. */
const statusLabel = (status: number): string => (statusLabels[status] ??= String(status));

/** Exemplars name a trace: only a traced request's observations carry one. */
const exemplarOf = (ctx: ServedRequest): Readonly<Record<string, string>> | undefined =>
  ctx.trace && { trace_id: ctx.trace.traceId, span_id: ctx.trace.spanId };

export class GatewayMetrics {
  readonly registry = new Registry<RegistryContentType>();
  private sources: MetricSources | undefined;
  private readonly requests: CellCounter;
  private readonly errors: CellCounter;
  private readonly duration: CellHistogram;
  private readonly overhead: CellHistogram;
  private readonly upstreamDuration: CellHistogram;
  private readonly firstByte: CellHistogram;
  private readonly tokens: CellCounter;
  private readonly cost: CellCounter;
  private readonly upstreamFailures: Counter<string>;
  private readonly retries: Counter<string>;
  private readonly retriesRefused: Counter<string>;
  private readonly ejections: Counter<string>;
  private readonly polls: Counter<string>;
  private readonly pollLag: HistogramCell;
  private readonly configInfo: Gauge<string>;
  private readonly reloads: Counter<string>;
  private readonly alertCrossings: Counter<string>;
  private readonly alertAttempts: Counter<string>;
  private readonly alertDeliveries: Counter<string>;
  /** Request counters by endpoint, then route target (null: not routed), then status. */
  private readonly requestChildren = new WeakMap<Endpoint, Map<RouteTarget | null, Map<number, Child>>>();
  private readonly endpointTimers = new WeakMap<Endpoint, EndpointTimers>();
  private readonly upstreamTimers = new Map<string, UpstreamTimers>();
  private readonly modelCounters = new Map<string, ModelCounters>();
  private taskCounts: { at: number; counts: Promise<Record<TaskStatus, number>> } | undefined;

  /**
   * `exemplars`: whether histograms keep traced observations as exemplars, which the scrape then carries
   * in the OpenMetrics format (Prometheus's text format has no place for them).
   */
  constructor({ exemplars = false }: { exemplars?: boolean } = {}) {
    if (exemplars) this.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    const counter = (config: CounterConfiguration<string>) =>
      new Counter({ ...config, registers: [this.registry] });
    const cells = (config: { name: string; help: string; labelNames: string[] }) =>
      new CellCounter(config.name, config.help, config.labelNames, this.registry);
    const histogram = (config: { name: string; help: string; labelNames?: string[]; buckets: number[] }) =>
      new CellHistogram(config.name, config.help, config.labelNames ?? [], this.registry, config.buckets);
    this.requests = cells({
      name: 'gateway_requests_total',
      help: 'Requests answered, by endpoint, routed model, upstream and the status the client saw (499: it left before any).',
      labelNames: ['endpoint', 'model', 'upstream', 'status'],
    });
    this.errors = cells({
      name: 'gateway_error_responses_total',
      help: "Requests answered with one of the gateway's own errors, by code (rate_limited and budget_exhausted are the limit refusals).",
      labelNames: ['code'],
    });
    this.duration = histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Time from the request to its last byte, by endpoint.',
      labelNames: ['endpoint'],
      buckets: LATENCY_BUCKETS,
    });
    this.overhead = histogram({
      name: 'gateway_request_overhead_seconds',
      help: "The gateway's own time in a request: its duration minus the time spent on upstreams, by endpoint.",
      labelNames: ['endpoint'],
      buckets: OVERHEAD_BUCKETS,
    });
    this.upstreamDuration = histogram({
      name: 'gateway_upstream_duration_seconds',
      help: "Time spent on upstreams per request (every attempt): from sending the request to the response's last byte, by the upstream that answered.",
      labelNames: ['upstream'],
      buckets: LATENCY_BUCKETS,
    });
    this.firstByte = histogram({
      name: 'gateway_stream_first_byte_seconds',
      help: 'Streams: time from the request to the first event written to the client, by upstream.',
      labelNames: ['upstream'],
      buckets: LATENCY_BUCKETS,
    });
    this.tokens = cells({
      name: 'gateway_tokens_total',
      help: 'Tokens used, by model and kind (prompt, completion; reasoning, cache_read and cache_write are parts of those).',
      labelNames: ['model', 'kind'],
    });
    this.cost = cells({
      name: 'gateway_cost_total',
      help: "Cost of the calls and video tasks billed, in the currency of gateway.yaml's prices, by model (unpriced calls count nothing).",
      labelNames: ['model'],
    });
    this.upstreamFailures = counter({
      name: 'gateway_upstream_failures_total',
      help: 'Upstream attempts that failed before answering the client, by upstream and reason (upstream_unreachable, upstream_timeout, http_<status>).',
      labelNames: ['upstream', 'reason'],
    });
    this.retries = counter({
      name: 'gateway_upstream_retries_total',
      help: "Requests sent again to the route's next target (its first fallback when it has some) after a failure, by upstream failed and upstream tried.",
      labelNames: ['from', 'to'],
    });
    this.retriesRefused = counter({
      name: 'gateway_upstream_retries_refused_total',
      help: 'Failures not retried because the retry budget was spent, by upstream.',
      labelNames: ['upstream'],
    });
    this.ejections = counter({
      name: 'gateway_upstream_ejections_total',
      help: 'Upstreams ejected by this instance for consecutive failures, by upstream.',
      labelNames: ['upstream'],
    });
    this.polls = counter({
      name: 'gateway_video_polls_total',
      help: 'Video task polls made by this instance, by upstream and result (ok, error).',
      labelNames: ['upstream', 'result'],
    });
    this.pollLag = histogram({
      name: 'gateway_video_poll_lag_seconds',
      help: 'How late video polls started after their task was due.',
      buckets: POLL_LAG_BUCKETS,
    }).cell();
    this.configInfo = new Gauge({
      name: 'gateway_config_info',
      help: 'The configuration serving: 1, with the sha256 of its file (or of its JSON) as `hash`.',
      labelNames: ['hash'],
      registers: [this.registry],
    });
    this.reloads = counter({
      name: 'gateway_config_reloads_total',
      help: 'Configuration reloads by result (applied, unchanged, refused).',
      labelNames: ['result'],
    });
    this.alertCrossings = counter({
      name: 'gateway_alert_crossings_total',
      help: 'Budget thresholds crossed, by result: claimed (this instance sends the alert), claimed_elsewhere, claim_failed, dropped (the alert queue was full, or the gateway stopping).',
      labelNames: ['result'],
    });
    this.alertAttempts = counter({
      name: 'gateway_alert_delivery_attempts_total',
      help: 'Spend alert webhook attempts, by result (2xx, 3xx, 4xx, 429, 5xx, timeout, unreachable, stopped).',
      labelNames: ['result'],
    });
    this.alertDeliveries = counter({
      name: 'gateway_alert_deliveries_total',
      help: 'Spend alert deliveries ended, by outcome: delivered, rejected (a 4xx other than 429, not retried), failed (attempts spent, or the gateway stopping).',
      labelNames: ['outcome'],
    });
    this.scraped();
    collectDefaultMetrics({ register: this.registry });
  }

  /** The parts read at scrape time, once the gateway has built them. */
  watch(sources: MetricSources): void {
    this.sources = sources;
  }

  /** The text a scrape gets, and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** One request answered; its cost in micro-units when priced (the usage records' unit). */
  request(ctx: ServedRequest, status: number, totalMs: number, costMicros: number | null): void {
    const { endpoint, target, observed } = ctx;
    this.requestChild(endpoint, target ?? null, status).value++;
    const timers = this.timersOf(endpoint);
    const exemplar = exemplarOf(ctx);
    timers.duration.observe(totalMs / 1000, exemplar);
    timers.overhead.observe(Math.max(0, totalMs - observed.upstreamMs) / 1000);
    if (observed.errorCode !== undefined) this.errors.cell(observed.errorCode).value++;
    if (!target) return;
    const upstream = this.upstreamTimersOf(target.upstream.name);
    if (observed.upstreamMs > 0) upstream.duration.observe(observed.upstreamMs / 1000, exemplar);
    if (observed.firstByteAt > 0)
      upstream.firstByte.observe((observed.firstByteAt - ctx.startedAt) / 1000, exemplar);
    if (ctx.usage) this.used(target.spec.id, ctx.usage, costMicros);
  }

  /** A request answered before it reached the pipeline (no route, a parse error Node raised, shutdown). */
  refused(status: number, code: string): void {
    this.requests.cell(NONE, NONE, NONE, statusLabel(status)).value++;
    this.errors.cell(code).value++;
  }

  /** A video task billed (by the poller): its tokens and cost. */
  billed(model: string, tokens: number, costMicros: number | null): void {
    const counters = this.modelCountersOf(model);
    if (tokens > 0) counters.completion.value += tokens;
    if (costMicros !== null && costMicros > 0) counters.cost.value += costMicros / 1e6;
  }

  upstreamFailed(upstream: string, reason: string): void {
    this.upstreamFailures.labels(upstream, reason).inc();
  }

  retried(from: string, to: string): void {
    this.retries.labels(from, to).inc();
  }

  retryRefused(upstream: string): void {
    this.retriesRefused.labels(upstream).inc();
  }

  ejected(upstream: string): void {
    this.ejections.labels(upstream).inc();
  }

  polled(upstream: string, ok: boolean): void {
    this.polls.labels(upstream, ok ? 'ok' : 'error').inc();
  }

  pollLagged(ms: number): void {
    this.pollLag.observe(ms / 1000);
  }

  /** The configuration now serving. */
  configured(hash: string): void {
    this.configInfo.reset();
    this.configInfo.labels(hash).set(1);
  }

  reloaded(result: 'applied' | 'unchanged' | 'refused'): void {
    this.reloads.labels(result).inc();
  }

  alertCrossed(result: 'claimed' | 'claimed_elsewhere' | 'claim_failed' | 'dropped'): void {
    this.alertCrossings.labels(result).inc();
  }

  alertAttempted(result: string): void {
    this.alertAttempts.labels(result).inc();
  }

  alertDelivered(outcome: 'delivered' | 'rejected' | 'failed'): void {
    this.alertDeliveries.labels(outcome).inc();
  }

  private requestChild(endpoint: Endpoint, target: RouteTarget | null, status: number): Child {
    let byTarget = this.requestChildren.get(endpoint);
    if (!byTarget)
      this.requestChildren.set(endpoint, (byTarget = new Map<RouteTarget | null, Map<number, Child>>()));
    let byStatus = byTarget.get(target);
    if (!byStatus) byTarget.set(target, (byStatus = new Map<number, Child>()));
    let child = byStatus.get(status);
    if (!child) {
      const model = target ? target.spec.id : NONE;
      const upstream = target ? target.upstream.name : NONE;
      child = this.requests.cell(endpoint.id, model, upstream, statusLabel(status));
      byStatus.set(status, child);
    }
    return child;
  }

  private timersOf(endpoint: Endpoint): EndpointTimers {
    let timers = this.endpointTimers.get(endpoint);
    if (!timers) {
      timers = { duration: this.duration.cell(endpoint.id), overhead: this.overhead.cell(endpoint.id) };
      this.endpointTimers.set(endpoint, timers);
    }
    return timers;
  }

  private upstreamTimersOf(name: string): UpstreamTimers {
    let timers = this.upstreamTimers.get(name);
    if (!timers) {
      timers = { duration: this.upstreamDuration.cell(name), firstByte: this.firstByte.cell(name) };
      this.upstreamTimers.set(name, timers);
    }
    return timers;
  }

  private modelCountersOf(model: string): ModelCounters {
    let counters = this.modelCounters.get(model);
    if (!counters) {
      const kind = (k: string) => this.tokens.cell(model, k);
      counters = {
        prompt: kind('prompt'),
        completion: kind('completion'),
        reasoning: kind('reasoning'),
        cacheRead: kind('cache_read'),
        cacheWrite: kind('cache_write'),
        cost: this.cost.cell(model),
      };
      this.modelCounters.set(model, counters);
    }
    return counters;
  }

  private used(model: string, usage: Usage, costMicros: number | null): void {
    const counters = this.modelCountersOf(model);
    counters.prompt.value += usage.promptTokens;
    counters.completion.value += usage.completionTokens;
    if (usage.reasoningTokens) counters.reasoning.value += usage.reasoningTokens;
    if (usage.cacheReadTokens) counters.cacheRead.value += usage.cacheReadTokens;
    if (usage.cacheWriteTokens) counters.cacheWrite.value += usage.cacheWriteTokens;
    if (costMicros !== null && costMicros > 0) counters.cost.value += costMicros / 1e6;
  }

  /** Gauges and counters whose values live elsewhere, read when Prometheus scrapes. */
  private scraped(): void {
    const sources = (): MetricSources | undefined => this.sources;
    const gauge = (name: string, help: string, read: (s: MetricSources) => number): void => {
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          const s = sources();
          if (s) this.set(read(s));
        },
      });
    };
    gauge('gateway_requests_in_flight', 'Requests being answered now.', (s) => s.inFlight());
    gauge('gateway_open_streams', 'Streams being relayed now.', (s) => s.openStreams());
    gauge('gateway_upstreams_ejected', 'Upstreams left out of routing now.', (s) => s.ejectedUpstreams());
    gauge('gateway_usage_queue_records', 'Usage records waiting to be written.', (s) => s.usage().queued);
    new Counter({
      name: 'gateway_usage_write_failures_total',
      help: 'Failed attempts to write a batch of usage records (nothing is dropped: a failed batch is retried).',
      registers: [this.registry],
      collect() {
        const s = sources();
        if (!s) return;
        this.reset(); // the store keeps the count: the counter shows it
        this.inc(s.usage().failedWrites);
      },
    });
    const counts = (): Promise<Record<TaskStatus, number>> | undefined => this.cachedTaskCounts();
    new Gauge({
      name: 'gateway_video_tasks',
      help: 'Video tasks in the store by state (every instance sharing a store reports the same counts).',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const pending = counts();
        if (!pending) return;
        const byState = await pending.catch(() => undefined);
        if (!byState) return;
        for (const [state, n] of Object.entries(byState)) this.labels(state).set(n);
      },
    });
  }

  /** The store's task counts, read again only once they are TASK_COUNT_TTL_MS old. */
  private cachedTaskCounts(): Promise<Record<TaskStatus, number>> | undefined {
    const read = this.sources?.taskCounts;
    if (!read) return undefined;
    const now = Date.now();
    if (!this.taskCounts || now - this.taskCounts.at >= TASK_COUNT_TTL_MS) {
      this.taskCounts = { at: now, counts: read() };
    }
    return this.taskCounts.counts;
  }
}
