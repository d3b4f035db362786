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
import { collectDefaultMetrics, Counter, Gauge, Registry, type RegistryContentType } from 'prom-client';
import type { Endpoint, ServedRequest } from '../request/served-request';
import type { RouteTarget } from '../contracts/route';
import type { Outcome } from '../contracts/context';
import type { ClientView } from './access-log';
import { errorOutcome } from './outcome';
import { pluginMetrics, type PluginMetrics } from './plugin-metrics';
import type { UsageStats } from '../stores/usage-store';
import type { TaskStatus } from '../stores/video-task';
import type { Usage } from '../contracts/usage';
import type { CounterCell, HistogramCell } from './metric-cells';
import {
  alertMetrics,
  configMetrics,
  metricMaker,
  pollMetrics,
  requestMetrics,
  upstreamMetrics,
  type AlertMetrics,
  type ConfigMetrics,
  type PollMetrics,
  type RequestMetrics,
  type UpstreamMetrics,
} from './metric-definitions';

/** The label value of what a request never had: no route, no upstream, no endpoint. */
export const NONE = 'none';

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

/** Request counters of one endpoint and target: by status, then outcome. */
type ByStatus = Map<number, Map<Outcome, Child>>;

const statusLabels: string[] = [];
/** A status code as a label, made once per code. */
const statusLabel = (status: number): string => (statusLabels[status] ??= String(status));

/** Exemplars name a trace: only a traced request's observations carry one. */
const exemplarOf = (ctx: ServedRequest): Readonly<Record<string, string>> | undefined =>
  ctx.trace && { trace_id: ctx.trace.traceId, span_id: ctx.trace.spanId };

export class GatewayMetrics {
  readonly registry = new Registry<RegistryContentType>();
  /** What plugins make their own metrics with, in this registry. */
  readonly plugins: PluginMetrics = pluginMetrics(this.registry);
  private sources: MetricSources | undefined;
  private readonly http: RequestMetrics;
  private readonly upstreams: UpstreamMetrics;
  private readonly video: PollMetrics;
  private readonly config: ConfigMetrics;
  private readonly alerts: AlertMetrics;
  /** Request counters by endpoint, then route target (null: not routed), then status. */
  private readonly requestChildren = new WeakMap<Endpoint, Map<RouteTarget | null, ByStatus>>();
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
    const make = metricMaker(this.registry);
    this.http = requestMetrics(make);
    this.upstreams = upstreamMetrics(make);
    this.video = pollMetrics(make);
    this.config = configMetrics(make);
    this.alerts = alertMetrics(make);
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
  request(ctx: ServedRequest, view: ClientView, totalMs: number, costMicros: number | null): void {
    const { endpoint, target, observed } = ctx;
    this.requestChild(endpoint, target ?? null, view).value++;
    const timers = this.timersOf(endpoint);
    const exemplar = exemplarOf(ctx);
    timers.duration.observe(totalMs / 1000, exemplar);
    timers.overhead.observe(Math.max(0, totalMs - observed.upstreamMs) / 1000);
    if (observed.errorCode !== undefined) this.http.errors.cell(observed.errorCode).value++;
    if (!target) return;
    const upstream = this.upstreamTimersOf(target.upstream.name);
    if (observed.upstreamMs > 0) upstream.duration.observe(observed.upstreamMs / 1000, exemplar);
    if (observed.firstByteAt > 0)
      upstream.firstByte.observe((observed.firstByteAt - ctx.startedAt) / 1000, exemplar);
    // A replayed answer (a cache's hit) used no upstream tokens.
    if (ctx.usage && !ctx.replayed) this.used(target.spec.id, ctx.usage, costMicros);
  }

  /** A request answered before it reached the pipeline (no route, a parse error Node raised, shutdown). */
  refused(status: number, code: string): void {
    this.http.requests.cell(NONE, NONE, NONE, statusLabel(status), errorOutcome(status)).value++;
    this.http.errors.cell(code).value++;
  }

  /** A video task billed (by the poller): its tokens and cost. */
  billed(model: string, tokens: number, costMicros: number | null): void {
    const counters = this.modelCountersOf(model);
    if (tokens > 0) counters.completion.value += tokens;
    if (costMicros !== null && costMicros > 0) counters.cost.value += costMicros / 1e6;
  }

  upstreamFailed(upstream: string, reason: string): void {
    this.upstreams.failures.labels(upstream, reason).inc();
  }

  retried(from: string, to: string): void {
    this.upstreams.retries.labels(from, to).inc();
  }

  retryRefused(upstream: string): void {
    this.upstreams.retriesRefused.labels(upstream).inc();
  }

  ejected(upstream: string): void {
    this.upstreams.ejections.labels(upstream).inc();
  }

  polled(upstream: string, ok: boolean): void {
    this.video.polls.labels(upstream, ok ? 'ok' : 'error').inc();
  }

  pollLagged(ms: number): void {
    this.video.lag.observe(ms / 1000);
  }

  /** The configuration now serving. */
  configured(hash: string): void {
    this.config.info.reset();
    this.config.info.labels(hash).set(1);
  }

  reloaded(result: 'applied' | 'unchanged' | 'refused'): void {
    this.config.reloads.labels(result).inc();
  }

  alertCrossed(result: 'claimed' | 'claimed_elsewhere' | 'claim_failed' | 'dropped'): void {
    this.alerts.crossings.labels(result).inc();
  }

  alertAttempted(result: string): void {
    this.alerts.attempts.labels(result).inc();
  }

  alertDelivered(outcome: 'delivered' | 'rejected' | 'failed'): void {
    this.alerts.deliveries.labels(outcome).inc();
  }

  private requestChild(
    endpoint: Endpoint,
    target: RouteTarget | null,
    { status, outcome }: ClientView,
  ): Child {
    let byTarget = this.requestChildren.get(endpoint);
    if (!byTarget) this.requestChildren.set(endpoint, (byTarget = new Map<RouteTarget | null, ByStatus>()));
    let byStatus = byTarget.get(target);
    if (!byStatus) byTarget.set(target, (byStatus = new Map<number, Map<Outcome, Child>>()));
    let byOutcome = byStatus.get(status);
    if (!byOutcome) byStatus.set(status, (byOutcome = new Map<Outcome, Child>()));
    let child = byOutcome.get(outcome);
    if (!child) {
      const model = target ? target.spec.id : NONE;
      const upstream = target ? target.upstream.name : NONE;
      child = this.http.requests.cell(endpoint.id, model, upstream, statusLabel(status), outcome);
      byOutcome.set(outcome, child);
    }
    return child;
  }

  private timersOf(endpoint: Endpoint): EndpointTimers {
    let timers = this.endpointTimers.get(endpoint);
    if (!timers) {
      timers = {
        duration: this.http.duration.cell(endpoint.id),
        overhead: this.http.overhead.cell(endpoint.id),
      };
      this.endpointTimers.set(endpoint, timers);
    }
    return timers;
  }

  private upstreamTimersOf(name: string): UpstreamTimers {
    let timers = this.upstreamTimers.get(name);
    if (!timers) {
      timers = { duration: this.http.upstreamDuration.cell(name), firstByte: this.http.firstByte.cell(name) };
      this.upstreamTimers.set(name, timers);
    }
    return timers;
  }

  private modelCountersOf(model: string): ModelCounters {
    let counters = this.modelCounters.get(model);
    if (!counters) {
      const kind = (k: string) => this.http.tokens.cell(model, k);
      counters = {
        prompt: kind('prompt'),
        completion: kind('completion'),
        reasoning: kind('reasoning'),
        cacheRead: kind('cache_read'),
        cacheWrite: kind('cache_write'),
        cost: this.http.cost.cell(model),
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
