/** The budget ledger a gateway runs on: shared on Redis when it has Redis, else its own in memory. */
import type { Logger } from 'pino';
import type { RedisLink } from '../redis/redis-link';
import type { UsageStore } from '../stores/usage-store';
import type { BudgetLedger } from './budget-ledger';
import { MemoryBudgetLedger, type OpenTasksOf } from './memory-budget-ledger';
import { RedisBudgetLedger } from './redis-budget-ledger';
import { spentFromUsage } from './spent-from-usage';

export interface BudgetLedgerParts {
  readonly usage: Pick<UsageStore, 'summary'>;
  /** What video tasks left running hold (in memory; Redis keeps task holds itself). */
  readonly openTasks: OpenTasksOf;
  readonly redis: RedisLink | undefined;
  readonly logger: Logger;
}

export function budgetLedger(parts: BudgetLedgerParts): { ledger: BudgetLedger; stop(): void } {
  const spent = spentFromUsage(parts.usage);
  const local = new MemoryBudgetLedger(spent, Date.now, parts.openTasks);
  if (!parts.redis) return { ledger: local, stop: () => undefined };
  const shared = new RedisBudgetLedger(parts.redis, local, spent, parts.logger);
  return { ledger: shared, stop: () => shared.stop() };
}
