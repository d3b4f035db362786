/** The services a plugin may inject, in this gateway's own container with the plugins it was given. */
import type { Logger } from 'pino';
import type { DependencyContainer } from 'tsyringe';
import { LoggerToken } from '../base/logger';
import { PluginAdminRoutesToken, type PluginAdminRoutes } from '../admin/plugin-routes';
import type { GatewayMetrics } from '../observability/metrics';
import { PluginMetricsToken } from '../observability/plugin-metrics';
import { BudgetLedgerToken, type BudgetLedger } from '../billing/budget-ledger';
import { KeyServiceToken, type KeyService } from '../keys/key-service';
import { SealerToken, type Sealer } from '../keys/sealer';
import type { AnyPluginRegistration } from '../plugins/define-plugin';
import { pluginContainer } from '../plugins/plugin-container';
import { LiveInstancesToken, type LiveInstances } from '../redis/live-instances';
import { RedisToken, type RedisLink } from '../redis/redis-link';
import { KeptState, KeptStateToken } from '../reload/kept-state';
import { ResilienceToken, type Resilience } from '../routing/resilience';
import { TeamServiceToken, type TeamService } from '../teams/team-service';
import { UsageStoreToken, type UsageStore } from '../stores/usage-store';
import { TaskStoreToken, type TaskStore } from '../stores/task-store';
import { FileStoreToken, type FileStore } from '../stores/file-store';
import { BatchLineStoreToken, type BatchLineStore } from '../stores/batch-line-store';
import { LoopbackToken, type Loopback } from '../http/loopback';

export interface ScopedServices {
  readonly redis: RedisLink | undefined;
  readonly live: LiveInstances | undefined;
  readonly logger: Logger;
  readonly keys: KeyService;
  readonly teams: TeamService;
  readonly usage: UsageStore;
  readonly budgets: BudgetLedger;
  readonly resilience: Resilience;
  readonly metrics: GatewayMetrics;
  readonly pluginRoutes: PluginAdminRoutes;
  readonly sealer: Sealer;
  readonly loopback: Loopback;
  readonly tasks: TaskStore;
  readonly files: FileStore;
  readonly batchLines: BatchLineStore;
}

export function gatewayScope(
  plugins: readonly AnyPluginRegistration[],
  services: ScopedServices,
): DependencyContainer {
  const scope = pluginContainer(plugins);
  const { redis, live } = services;
  // Factories, not values: tsyringe takes `useValue: undefined` for no provider at all.
  scope.register(RedisToken, { useFactory: () => redis });
  scope.register(LiveInstancesToken, { useFactory: () => live });
  scope.register(LoggerToken, { useValue: services.logger });
  scope.register(KeyServiceToken, { useValue: services.keys });
  scope.register(TeamServiceToken, { useValue: services.teams });
  scope.register(UsageStoreToken, { useValue: services.usage });
  scope.register(BudgetLedgerToken, { useValue: services.budgets });
  scope.register(KeptStateToken, { useValue: new KeptState() });
  scope.register(ResilienceToken, { useValue: services.resilience });
  scope.register(PluginMetricsToken, { useValue: services.metrics.plugins });
  scope.register(PluginAdminRoutesToken, { useValue: services.pluginRoutes });
  scope.register(SealerToken, { useValue: services.sealer });
  scope.register(LoopbackToken, { useValue: services.loopback });
  scope.register(TaskStoreToken, { useValue: services.tasks });
  scope.register(FileStoreToken, { useValue: services.files });
  scope.register(BatchLineStoreToken, { useValue: services.batchLines });
  return scope;
}
