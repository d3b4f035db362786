/**
 * The budget ledger (shared on Redis when the gateway has it) and the spend alerts that listen to it.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema';
import { SpendAlerts, type SpendAlertsDeps } from '../alerts/spend-alerts';
import type { BudgetLedger } from '../billing/budget-ledger';
import { budgetLedger } from '../billing/open-budget-ledger';
import type { SpendListener } from '../billing/spend-change';
import type { GatewayMetrics } from '../observability/metrics';
import { RedisClaims } from '../redis/redis-claims';
import type { RedisLink } from '../redis/redis-link';
import type { Stores } from '../stores/stores';
import { openTaskHolds } from '../tasks/open-task-holds';
import type { Part, WithParts } from './part';
import type { RunningSnapshot } from './routing';

export interface Billing {
  readonly budgets: BudgetLedger;
  /** The spend alerts' `observe`, told of each change of a budgeted spend; undefined without webhooks. */
  readonly alerts: SpendListener | undefined;
}

export interface BillingNeeds {
  readonly logger: Logger;
  readonly stores: Stores;
  readonly redis: RedisLink | undefined;
  readonly metrics: GatewayMetrics;
  /** The running snapshot, read only once the gateway serves (its prices for task holds). */
  readonly running: RunningSnapshot;
}

export function billing(
  config: GatewayConfig,
  { logger, stores, redis, metrics, running }: BillingNeeds,
  needs: readonly string[],
): WithParts<Billing> {
  const ledger = budgetLedger({
    usage: stores.usage,
    openTasks: openTaskHolds(stores.tasks, running.read),
    redis,
    logger,
  });
  const parts: Part[] = [{ name: 'budgets', needs, stop: () => Promise.resolve(ledger.stop()) }];
  const alerts = spendAlerts(config, {
    claims: redis ? new RedisClaims(redis) : stores.claims,
    logger,
    metrics,
  });
  if (alerts) {
    ledger.ledger.onSpend(alerts.observe);
    parts.push(alerts.part);
  }
  return { budgets: ledger.ledger, alerts: alerts?.observe, parts };
}

/**
 * The spend alerts as a listener of the budget ledger and a part of the gateway; none without a webhook,
 * so a gateway without alerts pays nothing per record. The listeners and the poller need the ledger, so
 * they stop first: the last requests' spend is still observed, and deliveries under way get what is left
 * of the grace period (at least a second).
 */
function spendAlerts(
  config: GatewayConfig,
  deps: SpendAlertsDeps,
): { observe: SpendListener; part: Part } | undefined {
  if (config.alerts.webhooks.length === 0) return undefined;
  const alerts = new SpendAlerts(config.alerts, deps);
  return {
    observe: (change) => alerts.observe(change),
    part: {
      name: 'spend alerts',
      needs: ['budgets'],
      start: () => alerts.start(),
      stop: (deadline) => alerts.stop(Math.max(deadline, Date.now() + 1_000)),
    },
  };
}
