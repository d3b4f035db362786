/**
 * The gateway's services a stage or a service plugin may be given, each with the token it is injected
 * by (`@inject(UsageStoreToken)`): routing, keys and teams, usage and prices, budgets, kept state,
 * metrics and admin routes, and Redis when configured.
 */
export { CatalogueToken, type Catalogue } from '../routing/catalogue';
export { ResilienceToken, type Resilience } from '../routing/resilience';
export { KeyServiceToken, type KeyService } from '../keys/key-service';
export { TeamServiceToken, type TeamService } from '../teams/team-service';
export { UsageStoreToken, type UsageRecord, type UsageStore } from '../stores/usage-store';
export { PricingToken, type Pricing } from '../billing/pricing';
export { BudgetLedgerToken, type BudgetLedger } from '../billing/budget-ledger';
export { KeptStateToken, type KeptState } from '../reload/kept-state';
// What a plugin adds beside the request path: its own metrics, and admin routes (audited when they change).
export {
  PluginMetricsToken,
  type PluginMetrics,
  type PluginMetricConfig,
} from '../observability/plugin-metrics';
export {
  PluginAdminRoutesToken,
  type PluginAdminRoutes,
  type PluginAdminRoute,
  type PluginAdminCall,
} from '../admin/plugin-routes';

// Redis, when configured: the link, the instances sharing it, and its scripts.
export { RedisToken, type RedisLink } from '../redis/redis-link';
export { LiveInstancesToken, type LiveInstances } from '../redis/live-instances';
export { RedisScript } from '../redis/redis-script';
