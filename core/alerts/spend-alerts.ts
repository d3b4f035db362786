/**
 * Spend alerts: each threshold a budget's spend crosses is claimed once across instances (Redis, else
 * the store) and its alert POSTed, signed, to every webhook that wants it. `observe` is called on the
 * path that counts spend, so it only finds the crossings and queues them; claims and deliveries run
 * after, in a bounded queue (a full one drops, logged and counted, never slows a request).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AlertsConfig, AlertWebhookConfig } from '../../config/schema';
import type { SpendChange } from '../billing/spend-change';
import type { GatewayMetrics } from '../observability/metrics';
import type { ClaimStore } from '../stores/claim-store';
import { alertEvent } from './alert-event';
import { AlertShutdown, type AlertTimers } from './alert-shutdown';
import { claimExpiry, claimName, crossedThresholds } from './crossings';
import { retryDelay } from './retry-delay';
import { deliver, type DeliveryDeps } from './webhook-delivery';

/** Crossings queued or being delivered at most; past it new ones are dropped. */
export const ALERT_QUEUE_MAX = 1_000;

type SubjectKind = SpendChange['subject']['kind'];

/** One threshold crossed by one change, as observed. */
interface Crossing {
  readonly change: SpendChange;
  readonly threshold: number;
  readonly at: number;
}

export interface SpendAlertsDeps {
  /** Where crossings are claimed: Redis when configured, else the store. */
  readonly claims: ClaimStore;
  readonly logger: Logger;
  readonly metrics: GatewayMetrics;
  readonly clock?: () => number;
  /** What retries and the stop's deadline wait on: the process's timers unless given (a test's clock). */
  readonly timers?: AlertTimers;
}

export class SpendAlerts {
  /** The webhooks that want each (subject kind, threshold), built once. */
  private readonly receivers = new Map<string, AlertWebhookConfig[]>();
  /** Every threshold some webhook wants, per subject kind, ascending. */
  private readonly watched: Record<SubjectKind, number[]> = { key: [], team: [] };
  private readonly waiting: Crossing[] = [];
  private readonly running = new Set<Promise<void>>();
  private draining = false;
  private readonly delivery: DeliveryDeps;
  private readonly shutdown: AlertShutdown;
  private readonly clock: () => number;

  constructor(
    private readonly config: AlertsConfig,
    private readonly deps: SpendAlertsDeps,
  ) {
    this.clock = deps.clock ?? Date.now;
    this.shutdown = new AlertShutdown(this.clock, deps.timers);
    this.delivery = {
      config,
      logger: deps.logger,
      metrics: deps.metrics,
      shutdown: this.shutdown,
      clock: this.clock,
    };
    for (const hook of config.webhooks) this.route(hook);
    for (const list of Object.values(this.watched)) list.sort((a, b) => a - b);
  }

  /**
   * Queues an alert for each threshold `change` crosses that a webhook wants; nothing else. Never
   * throws: it runs where usage is counted, which an alert must not break.
   */
  observe(change: SpendChange): void {
    try {
      for (const threshold of crossedThresholds(change, this.watched[change.subject.kind] ?? [])) {
        this.enqueue({ change, threshold, at: this.clock() });
      }
    } catch (e) {
      this.deps.logger.error({ err: e, subject: change.subject }, 'spend alert: change not observed');
    }
  }

  start(): void {
    this.deps.logger.info({ webhooks: this.config.webhooks.length }, 'spend alerts: on');
  }

  /** Deliveries under way go on until `deadline` (epoch ms), then are aborted; new crossings are dropped. */
  async stop(deadline: number): Promise<void> {
    this.shutdown.begin(deadline);
    this.drain();
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    this.shutdown.end();
  }

  private route(hook: AlertWebhookConfig): void {
    for (const kind of hook.subjects) {
      for (const threshold of hook.thresholds ?? this.config.thresholds) {
        const name = `${kind}:${threshold}`;
        const list = this.receivers.get(name);
        if (list) list.push(hook);
        else {
          this.receivers.set(name, [hook]);
          this.watched[kind].push(threshold);
        }
      }
    }
  }

  private enqueue(crossing: Crossing): void {
    const full = this.waiting.length + this.running.size >= ALERT_QUEUE_MAX;
    if (full || this.shutdown.stopping) {
      const reason = full ? `the alert queue is full (${ALERT_QUEUE_MAX})` : 'the gateway is stopping';
      this.deps.logger.error({ ...described(crossing), reason }, 'spend alert dropped');
      this.deps.metrics.alertCrossed('dropped');
      return;
    }
    this.waiting.push(crossing);
    if (!this.draining) {
      this.draining = true;
      setImmediate(() => this.drain()); // off the caller's turn: observe does no I/O
    }
  }

  private drain(): void {
    this.draining = false;
    for (const crossing of this.waiting.splice(0)) {
      const run: Promise<void> = this.send(crossing)
        .catch((e: unknown) =>
          this.deps.logger.error({ err: e, ...described(crossing) }, 'spend alert failed'),
        )
        .finally(() => this.running.delete(run));
      this.running.add(run);
    }
  }

  /** Claims the crossing and, when this instance won it, delivers it to each webhook that wants it. */
  private async send(crossing: Crossing): Promise<void> {
    const { change, threshold, at } = crossing;
    if (!(await this.claim(crossing))) return;
    const event = alertEvent(change, threshold, at);
    const body = JSON.stringify(event);
    const hooks = this.receivers.get(`${change.subject.kind}:${threshold}`) ?? [];
    await Promise.all(hooks.map((hook) => deliver(this.delivery, hook, event, body)));
  }

  /**
   * True when this instance holds the crossing's claim. A store or Redis that fails is asked again on
   * the delivery's backoff; the owner id lets a try whose answer was lost recognise its own claim.
   */
  private async claim(crossing: Crossing): Promise<boolean> {
    const { change, threshold } = crossing;
    const name = claimName(change, threshold);
    const owner = randomUUID();
    const { retry } = this.config;
    for (let attempt = 1; ; attempt++) {
      try {
        const won = await this.deps.claims.claim(name, owner, claimExpiry(change, this.clock()));
        this.deps.metrics.alertCrossed(won ? 'claimed' : 'claimed_elsewhere');
        return won;
      } catch (e) {
        const waitMs = retryDelay(retry, attempt, undefined);
        if (
          attempt >= retry.attempts ||
          !this.shutdown.allows(waitMs) ||
          !(await this.shutdown.wait(waitMs))
        ) {
          this.deps.logger.error(
            { err: e, ...described(crossing), attempt },
            'spend alert not sent: its claim failed',
          );
          this.deps.metrics.alertCrossed('claim_failed');
          return false;
        }
        this.deps.logger.warn(
          { err: e, ...described(crossing), attempt, next_retry_ms: waitMs },
          'spend alert claim failed; retrying',
        );
      }
    }
  }
}

/** A crossing as logs name it: the subject (a key's visible id or a team's id), never a secret. */
const described = ({ change, threshold }: Crossing) => ({
  subject: change.subject,
  threshold_percent: threshold,
  period_start: change.periodStart,
});
